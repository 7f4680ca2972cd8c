import { ConfigurationError, InvalidInputError } from '../errors/index.ts';
import { UnknownModelError } from './errors/unknown-model-error.ts';
import type { LanguageModel, ModelEntry } from './model.ts';
import { environmentModel, readModelsFile } from './model-config.ts';
import { OpenAICompatibleModel, type OpenAICompatibleOptions } from './openai-compatible.ts';
import { mergeSampling, PROTOCOL_SAMPLING_DEFAULTS } from './sampling.ts';

/** The built-in analyst (docs/spec.md#model-protocols): always configured, the default when nothing else is. */
export const OFFLINE_MODEL: ModelEntry = {
  id: 'offline',
  protocol: 'offline',
  description:
    'built-in analyst with no language model: it profiles the data by running real code and answers from the outputs',
};

/** How models are called: everything but where they are (timeouts, retries, `fetch`). */
export type LanguageModelOptions = Omit<
  OpenAICompatibleOptions,
  'id' | 'baseUrl' | 'upstreamModel' | 'apiKey' | 'defaults' | 'reasoning'
>;

/** A configured model and its client (absent for the offline analyst and for cell runs). */
export interface ResolvedModel {
  entry: ModelEntry;
  model: LanguageModel | undefined;
}

export interface ModelRegistryOptions {
  /** Configured models; the offline analyst is added when absent. */
  models: ModelEntry[];
  /** Default: the first model, else `offline`. */
  defaultId?: string;
  /** Model id → the environment variable its key should come from but which is unset. */
  missingApiKeys?: Record<string, string>;
}

/**
 * The models Analyst knows, by id or alias, ignoring case (DeepAnalyze's clients ask for
 * `deepanalyze-8b`, vLLM serves `DeepAnalyze-8B`). Entries carry API keys: never serialize
 * them whole.
 */
export class ModelRegistry {
  readonly #models: Map<string, ModelEntry>;
  /**
   * Clients made with the default options, by model id: a client holds no state of a request,
   * and making one per chat costs event-loop time (docs/performance.md#model-clients).
   */
  readonly #clients = new Map<string, LanguageModel>();
  /** Lower-cased ids and aliases → entries. */
  readonly #names: Map<string, ModelEntry>;
  readonly #defaultId: string;
  readonly #missingApiKeys: Record<string, string>;

  constructor(options: ModelRegistryOptions) {
    this.#models = new Map();
    this.#names = new Map();
    const models = options.models.some((m) => m.id.toLowerCase() === OFFLINE_MODEL.id)
      ? options.models
      : [...options.models, OFFLINE_MODEL];
    for (const model of models) {
      for (const name of [model.id, ...(model.aliases ?? [])]) {
        const taken = this.#names.get(name.toLowerCase());
        if (taken)
          throw new ConfigurationError(
            taken.id === model.id && name === model.id
              ? `the model id "${model.id}" is configured twice; ids must be unique`
              : `the model name "${name}" is configured twice (for "${taken.id}" and "${model.id}"); ids and aliases must be unique, ignoring case`,
          );
        this.#names.set(name.toLowerCase(), model);
      }
      this.#models.set(model.id, model);
    }
    const defaultId = options.defaultId ?? options.models[0]?.id ?? OFFLINE_MODEL.id;
    const fallback = this.#names.get(defaultId.toLowerCase());
    if (!fallback)
      throw new ConfigurationError(
        `the default model "${defaultId}" is not configured; known: ${this.#ids().join(', ')}`,
      );
    this.#defaultId = fallback.id;
    this.#missingApiKeys = { ...options.missingApiKeys };
  }

  list(): ModelEntry[] {
    return [...this.#models.values()];
  }

  /** By id or alias, ignoring case. Throws `UnknownModelError` (404) naming the known ids. */
  get(id: string): ModelEntry {
    const model = this.#names.get(id.toLowerCase());
    if (!model)
      throw new UnknownModelError(
        `unknown model "${id}": the configured models are ${this.#ids().join(', ')}`,
        {
          param: 'model',
        },
      );
    return model;
  }

  default(): ModelEntry {
    return this.get(this.#defaultId);
  }

  /**
   * The model a request names (or the default) with its client: none for the offline analyst,
   * nor when `client` is false (a cell run calls no model). The one place that tells them apart.
   */
  resolve(id: string | undefined, options: { client?: boolean } = {}): ResolvedModel {
    const entry = id ? this.get(id) : this.default();
    const client = options.client !== false && entry.protocol !== 'offline';
    return { entry, model: client ? this.languageModel(entry.id) : undefined };
  }

  /**
   * A client for a configured model. Throws `InvalidInputError` for `offline` (there is no
   * language model to call) and `ConfigurationError` when its key variable is unset.
   */
  languageModel(id: string, options: LanguageModelOptions = {}): LanguageModel {
    const model = this.get(id);
    if (model.protocol === 'offline')
      throw new InvalidInputError(
        `"${id}" is the built-in offline analyst: it has no language model to call`,
        {
          param: 'model',
        },
      );
    if (model.baseUrl === undefined)
      throw new ConfigurationError(
        `model "${id}" has no base URL: give it the server's OpenAI-compatible URL`,
      );
    const keyVariable = this.#missingApiKeys[model.id];
    if (keyVariable !== undefined)
      throw new ConfigurationError(
        `model "${id}" takes its API key from ${keyVariable} (api_key_env), which is not set: export ${keyVariable}`,
      );
    const plain = Object.keys(options).length === 0;
    const cached = plain ? this.#clients.get(model.id) : undefined;
    if (cached) return cached;
    const client = new OpenAICompatibleModel({
      ...options,
      id: model.id,
      baseUrl: model.baseUrl,
      upstreamModel: model.upstreamModel ?? model.id,
      apiKey: model.apiKey,
      defaults: mergeSampling(PROTOCOL_SAMPLING_DEFAULTS[model.protocol], model.sampling),
      ...(model.reasoning !== undefined ? { reasoning: model.reasoning } : {}),
    });
    if (plain) this.#clients.set(model.id, client);
    return client;
  }

  #ids(): string[] {
    return [...this.#models.keys()];
  }
}

export interface LoadModelRegistryOptions {
  /** Where ANALYST_MODEL* and ANALYST_MODELS_FILE are read. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** A JSON models file. Default: ANALYST_MODELS_FILE, else none. */
  file?: string;
}

/**
 * The registry from the environment and an optional models file:
 * - the file's models, in order, then the environment's model unless the file has its id;
 * - the default: the file's `default`, else the environment's model, else the file's first
 *   model, else the offline analyst.
 * Any bad setting is a `ConfigurationError` naming the file or the variable.
 */
export function loadModelRegistry(options: LoadModelRegistryOptions = {}): ModelRegistry {
  const env = options.env ?? process.env;
  const envFile = env.ANALYST_MODELS_FILE?.trim() || undefined;
  const file = options.file ?? envFile;
  const fromEnv = environmentModel(env);
  if (file === undefined)
    return new ModelRegistry({ models: fromEnv ? [fromEnv] : [], defaultId: fromEnv?.id });

  const variable = options.file !== undefined ? undefined : 'ANALYST_MODELS_FILE';
  const fromFile = readModelsFile(file, variable, env);
  const models = [...fromFile.models];
  const taken = new Set(models.flatMap((m) => [m.id, ...(m.aliases ?? [])].map((n) => n.toLowerCase())));
  if (fromEnv && !taken.has(fromEnv.id.toLowerCase())) models.push(fromEnv);
  const defaultId = fromFile.defaultId ?? fromEnv?.id ?? models[0]?.id;
  if (fromFile.defaultId !== undefined && fromFile.defaultId.toLowerCase() !== OFFLINE_MODEL.id) {
    const wanted = fromFile.defaultId.toLowerCase();
    if (!models.some((m) => [m.id, ...(m.aliases ?? [])].some((name) => name.toLowerCase() === wanted)))
      throw new ConfigurationError(
        `the models file ${file} names the default "${fromFile.defaultId}", which it does not configure; ` +
          `use one of ${[...models.map((m) => m.id), OFFLINE_MODEL.id].join(', ')}`,
      );
  }
  return new ModelRegistry({ models, defaultId, missingApiKeys: fromFile.missingApiKeys });
}
