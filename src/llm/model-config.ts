import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigurationError } from '../errors/index.ts';
import { formatIssues } from './format-issues.ts';
import type { ModelEntry, ProtocolName } from './model.ts';
import { SamplingWireSchema, samplingFromWire } from './sampling.ts';

/** Why a URL cannot be a model's base URL, or undefined when it can (never echoes the URL: it may hold a key). */
export function baseUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `is not an http(s) URL (it starts with "${url.protocol}")`;
  return undefined;
}

const BASE_URL_HINT = 'an http:// or https:// URL such as http://127.0.0.1:8000/v1';

const ModelsFileSchema = z
  .object({
    default: z.string().min(1).optional(),
    models: z.array(
      z
        .object({
          id: z.string().regex(/^\S+$/, 'must be a non-empty name without spaces'),
          aliases: z.array(z.string().regex(/^\S+$/, 'must be a non-empty name without spaces')).optional(),
          protocol: z.enum(['deepanalyze', 'prompted', 'tools']),
          base_url: z.string().superRefine((value, context) => {
            const problem = baseUrlProblem(value);
            if (problem) context.addIssue({ code: 'custom', message: `${problem}: use ${BASE_URL_HINT}` });
          }),
          model: z.string().min(1).optional(),
          api_key: z.string().min(1).optional(),
          api_key_env: z
            .string()
            .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be the name of an environment variable')
            .optional(),
          description: z.string().optional(),
          sampling: SamplingWireSchema.optional(),
          grounding: z.enum(['check', 'repair', 'off']).optional(),
          reasoning: z.boolean().optional(),
        })
        .strict()
        .refine((m) => m.api_key === undefined || m.api_key_env === undefined, {
          message: 'give api_key or api_key_env, not both',
        }),
    ),
  })
  .strict();

/** The models of a models file, with keys named by `api_key_env` read from `env`. */
export interface FileModels {
  defaultId: string | undefined;
  models: ModelEntry[];
  /** Model id → the variable its key should come from, which is not set. */
  missingApiKeys: Record<string, string>;
}

/**
 * Reads and validates a models file. `variable` names the environment variable the path came
 * from, if it did, so that messages can say where to fix it.
 */
export function readModelsFile(
  path: string,
  variable: string | undefined,
  env: Record<string, string | undefined>,
): FileModels {
  const where = variable ? `the models file ${path} (${variable})` : `the models file ${path}`;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    const fix = variable ? `fix the path or unset ${variable}` : 'fix the path';
    throw new ConfigurationError(`cannot read ${where}: ${reason}; ${fix}`, { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigurationError(`${where} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  const parsed = ModelsFileSchema.safeParse(value);
  if (!parsed.success) throw new ConfigurationError(`${where} is invalid: ${formatIssues(parsed.error)}`);

  const models: ModelEntry[] = [];
  const missingApiKeys: Record<string, string> = {};
  const seen = new Set<string>();
  for (const [i, m] of parsed.data.models.entries()) {
    if (m.id.toLowerCase() === 'offline')
      throw new ConfigurationError(
        `${where}: models[${i}] has the id "offline", which is the built-in analyst; pick another id`,
      );
    for (const name of [m.id, ...(m.aliases ?? [])]) {
      if (name.toLowerCase() === 'offline' && name !== m.id)
        throw new ConfigurationError(
          `${where}: models[${i}] has the alias "${name}", the id of the built-in analyst; pick another alias`,
        );
      if (seen.has(name.toLowerCase()))
        throw new ConfigurationError(
          `${where}: the name "${name}" is used twice (models[${i}]); ids and aliases must be unique, ignoring case`,
        );
      seen.add(name.toLowerCase());
    }
    let apiKey = m.api_key;
    if (m.api_key_env !== undefined) {
      apiKey = env[m.api_key_env]?.trim() || undefined;
      if (apiKey === undefined) missingApiKeys[m.id] = m.api_key_env;
    }
    models.push({
      id: m.id,
      protocol: m.protocol,
      baseUrl: m.base_url.replace(/\/+$/, ''),
      upstreamModel: m.model ?? m.id,
      ...(apiKey !== undefined ? { apiKey } : {}),
      ...(m.description !== undefined ? { description: m.description } : {}),
      ...(m.aliases?.length ? { aliases: m.aliases } : {}),
      ...(m.sampling ? { sampling: samplingFromWire(m.sampling) } : {}),
      ...(m.grounding ? { grounding: m.grounding } : {}),
      ...(m.reasoning !== undefined ? { reasoning: m.reasoning } : {}),
    });
  }
  return { defaultId: parsed.data.default, models, missingApiKeys };
}

const PROTOCOLS = ['deepanalyze', 'prompted', 'tools'] as const;

/**
 * The model the environment configures (ANALYST_MODEL_URL + ANALYST_MODEL, with
 * ANALYST_MODEL_PROTOCOL and ANALYST_MODEL_API_KEY), or undefined when it configures none.
 */
export function environmentModel(env: Record<string, string | undefined>): ModelEntry | undefined {
  const read = (name: string): string | undefined => env[name]?.trim() || undefined;
  const url = read('ANALYST_MODEL_URL');
  const model = read('ANALYST_MODEL');
  const protocol = read('ANALYST_MODEL_PROTOCOL');
  const apiKey = read('ANALYST_MODEL_API_KEY');

  if (url !== undefined && model === undefined)
    throw new ConfigurationError(
      'ANALYST_MODEL_URL is set but ANALYST_MODEL is not: set ANALYST_MODEL to the model name the server ' +
        'serves (GET <url>/models lists it), or unset ANALYST_MODEL_URL',
    );
  if (model !== undefined && url === undefined)
    throw new ConfigurationError(
      `ANALYST_MODEL is set but ANALYST_MODEL_URL is not: set ANALYST_MODEL_URL to the server's ${BASE_URL_HINT}, or unset ANALYST_MODEL`,
    );
  if (url === undefined || model === undefined) {
    if (protocol !== undefined)
      throw new ConfigurationError(
        'ANALYST_MODEL_PROTOCOL is set but no model is: set ANALYST_MODEL_URL and ANALYST_MODEL too, or unset it',
      );
    return undefined;
  }
  const problem = baseUrlProblem(url);
  if (problem) throw new ConfigurationError(`ANALYST_MODEL_URL ${problem}: set it to ${BASE_URL_HINT}`);
  if (model.toLowerCase() === 'offline')
    throw new ConfigurationError(
      'ANALYST_MODEL is "offline", the id of the built-in analyst: unset ANALYST_MODEL_URL and ANALYST_MODEL to use it',
    );
  if (protocol !== undefined && !(PROTOCOLS as readonly string[]).includes(protocol))
    throw new ConfigurationError(
      `ANALYST_MODEL_PROTOCOL must be deepanalyze, prompted or tools (got "${protocol}"); unset it to infer it from the model name`,
    );
  return {
    id: model,
    protocol:
      (protocol as ProtocolName | undefined) ?? (/deepanalyze/i.test(model) ? 'deepanalyze' : 'prompted'),
    baseUrl: url.replace(/\/+$/, ''),
    upstreamModel: model,
    ...(apiKey !== undefined ? { apiKey } : {}),
    description: 'configured by ANALYST_MODEL_URL and ANALYST_MODEL',
  };
}
