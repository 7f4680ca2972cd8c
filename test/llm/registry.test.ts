import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigurationError, InvalidInputError } from '../../src/errors/index.ts';
import { UnknownModelError } from '../../src/llm/errors/unknown-model-error.ts';
import { OpenAICompatibleModel } from '../../src/llm/openai-compatible.ts';
import { loadModelRegistry, ModelRegistry } from '../../src/llm/registry.ts';
import { chatRequests, collect, withScriptedModel } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'analyst-registry-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
/** Writes a models file (an object is written as JSON, a string as it is) and returns its path. */
function modelsFile(content: unknown): string {
  files += 1;
  const path = join(dir, `models-${files}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

const SECRET = 'sk-live-0123456789abcdef';
const vllm = { ANALYST_MODEL_URL: 'http://127.0.0.1:8000/v1/', ANALYST_MODEL: 'DeepAnalyze-8B' };
const fileModels = {
  default: 'gpt',
  models: [
    {
      id: 'gpt',
      protocol: 'tools',
      base_url: 'https://api.openai.com/v1',
      model: 'gpt-4o-mini',
      api_key_env: 'OPENAI_KEY',
    },
    {
      id: 'local',
      protocol: 'prompted',
      base_url: 'http://ollama:11434/v1',
      description: 'Ollama on the LAN',
    },
  ],
};

/** Asserts a ConfigurationError whose message matches every pattern and holds no secret. */
function assertConfigError(load: () => unknown, ...patterns: RegExp[]): void {
  assert.throws(load, (error: unknown) => {
    assert.ok(error instanceof ConfigurationError, `expected a ConfigurationError, got ${String(error)}`);
    for (const pattern of patterns) assert.match(error.message, pattern);
    assert.ok(!error.message.includes(SECRET), 'the API key leaked into the message');
    return true;
  });
}

describe('model registry: sources and defaults', () => {
  test('with nothing configured, the offline analyst is the only model and the default', () => {
    const registry = loadModelRegistry({ env: {} });
    assert.deepEqual(
      registry.list().map((m) => m.id),
      ['offline'],
    );
    const offline = registry.default();
    assert.equal(offline.protocol, 'offline');
    assert.match(offline.description ?? '', /no language model/);
    assert.throws(() => registry.languageModel('offline'), InvalidInputError);
  });

  test('the environment model is the default without a file', () => {
    const registry = loadModelRegistry({ env: { ...vllm, ANALYST_MODEL_API_KEY: SECRET } });
    assert.deepEqual(
      registry.list().map((m) => m.id),
      ['DeepAnalyze-8B', 'offline'],
    );
    const model = registry.default();
    assert.equal(model.id, 'DeepAnalyze-8B');
    assert.equal(model.upstreamModel, 'DeepAnalyze-8B');
    assert.equal(model.baseUrl, 'http://127.0.0.1:8000/v1');
    assert.equal(model.apiKey, SECRET);
  });

  test('the protocol is inferred from the model name unless ANALYST_MODEL_PROTOCOL says', () => {
    const protocol = (env: Record<string, string>) => loadModelRegistry({ env }).default().protocol;
    assert.equal(protocol({ ...vllm, ANALYST_MODEL: 'org/deepanalyze-8b-awq' }), 'deepanalyze');
    assert.equal(protocol({ ...vllm, ANALYST_MODEL: 'Qwen2.5-7B-Instruct' }), 'prompted');
    assert.equal(protocol({ ...vllm, ANALYST_MODEL_PROTOCOL: 'tools' }), 'tools');
    assert.equal(
      protocol({ ...vllm, ANALYST_MODEL: 'llama3', ANALYST_MODEL_PROTOCOL: 'deepanalyze' }),
      'deepanalyze',
    );
  });

  test('a models file gives its models, its default, upstream names and keys from the environment', () => {
    const registry = loadModelRegistry({ env: { OPENAI_KEY: SECRET }, file: modelsFile(fileModels) });
    assert.deepEqual(
      registry.list().map((m) => m.id),
      ['gpt', 'local', 'offline'],
    );
    assert.equal(registry.default().id, 'gpt');
    assert.deepEqual(registry.get('gpt'), {
      id: 'gpt',
      protocol: 'tools',
      baseUrl: 'https://api.openai.com/v1',
      upstreamModel: 'gpt-4o-mini',
      apiKey: SECRET,
    });
    const local = registry.get('local');
    assert.equal(local.upstreamModel, 'local', 'model defaults to the id');
    assert.equal(local.description, 'Ollama on the LAN');
    assert.ok(registry.languageModel('local') instanceof OpenAICompatibleModel);
  });

  test('without a default, a file defaults to its first model; "offline" may be named', () => {
    const noDefault = modelsFile({ models: fileModels.models });
    assert.equal(loadModelRegistry({ env: {}, file: noDefault }).default().id, 'gpt');
    const offline = modelsFile({ ...fileModels, default: 'offline' });
    assert.equal(loadModelRegistry({ env: {}, file: offline }).default().id, 'offline');
    assert.equal(loadModelRegistry({ env: {}, file: modelsFile({ models: [] }) }).default().id, 'offline');
  });

  test("with both, the environment model is added, the file's default wins, and a taken id stays the file's", () => {
    const withDefault = loadModelRegistry({ env: vllm, file: modelsFile(fileModels) });
    assert.deepEqual(
      withDefault.list().map((m) => m.id),
      ['gpt', 'local', 'DeepAnalyze-8B', 'offline'],
    );
    assert.equal(withDefault.default().id, 'gpt');

    const noDefault = loadModelRegistry({ env: vllm, file: modelsFile({ models: fileModels.models }) });
    assert.equal(noDefault.default().id, 'DeepAnalyze-8B', 'the environment model beats "first in the file"');

    const taken = loadModelRegistry({
      env: { ...vllm, ANALYST_MODEL: 'local' },
      file: modelsFile(fileModels),
    });
    assert.equal(taken.list().length, 3);
    assert.equal(taken.get('local').baseUrl, 'http://ollama:11434/v1');
  });

  test('ANALYST_MODELS_FILE is read when no file is passed; a passed file wins', () => {
    const fromEnv = modelsFile(fileModels);
    const passed = modelsFile({ models: [{ id: 'other', protocol: 'tools', base_url: 'http://h/v1' }] });
    assert.equal(loadModelRegistry({ env: { ANALYST_MODELS_FILE: fromEnv } }).default().id, 'gpt');
    assert.equal(
      loadModelRegistry({ env: { ANALYST_MODELS_FILE: fromEnv }, file: passed }).default().id,
      'other',
    );
  });

  test('an unknown id is a 404 listing the known ones', () => {
    const registry = loadModelRegistry({ env: vllm });
    assert.throws(
      () => registry.get('gpt-5'),
      (error: unknown) =>
        error instanceof UnknownModelError &&
        error.status === 404 &&
        /"gpt-5"/.test(error.message) &&
        /DeepAnalyze-8B, offline/.test(error.message),
    );
  });

  test('a model whose api_key_env is unset loads, but cannot be called until it is set', () => {
    const registry = loadModelRegistry({ env: {}, file: modelsFile(fileModels) });
    assert.equal(registry.get('gpt').apiKey, undefined);
    assertConfigError(() => registry.languageModel('gpt'), /OPENAI_KEY/, /not set/);
  });

  test('languageModel() talks to the configured upstream with its upstream name', async () => {
    await withScriptedModel({ model: 'Qwen2.5-7B', turns: [{ content: 'hello' }] }, async (server) => {
      const registry = loadModelRegistry({
        env: { ANALYST_MODEL_URL: server.url, ANALYST_MODEL: 'Qwen2.5-7B' },
      });
      const parts = await collect(
        registry.languageModel('Qwen2.5-7B').stream({ messages: [{ role: 'user', content: 'hi' }] }),
      );
      assert.equal(parts.map((p) => (p.type === 'text-delta' ? p.text : '')).join(''), 'hello');
      assert.equal(chatRequests(server)[0]!.model, 'Qwen2.5-7B');
    });
  });

  test('one client per model serves every request, at once; other options get their own', async () => {
    const turns = [{ content: 'one' }, { content: 'two' }];
    await withScriptedModel({ model: 'Qwen2.5-7B', turns }, async (server) => {
      const registry = loadModelRegistry({
        env: { ANALYST_MODEL_URL: server.url, ANALYST_MODEL: 'Qwen2.5-7B' },
      });
      const client = registry.languageModel('Qwen2.5-7B');
      assert.equal(registry.languageModel('qwen2.5-7b'), client, 'by any spelling of its name');
      assert.notEqual(registry.languageModel('Qwen2.5-7B', { maxRetries: 0 }), client);
      const texts = await Promise.all(
        [client, registry.languageModel('Qwen2.5-7B')].map(async (model) =>
          (await collect(model.stream({ messages: [{ role: 'user', content: 'hi' }] })))
            .map((p) => (p.type === 'text-delta' ? p.text : ''))
            .join(''),
        ),
      );
      assert.deepEqual(texts.sort(), ['one', 'two']);
    });
  });
});

describe('model registry: configuration errors', () => {
  test('a registry built by hand checks its ids, its default and its base URLs', () => {
    const tools = { id: 'x', protocol: 'tools' as const, baseUrl: 'http://h/v1' };
    assertConfigError(() => new ModelRegistry({ models: [tools, tools] }), /"x" is configured twice/);
    assertConfigError(
      () => new ModelRegistry({ models: [tools], defaultId: 'y' }),
      /default model "y"/,
      /x, offline/,
    );
    const registry = new ModelRegistry({ models: [{ id: 'nourl', protocol: 'tools' }] });
    assert.equal(registry.default().id, 'nourl');
    assertConfigError(() => registry.languageModel('nourl'), /no base URL/);
  });

  test('an unreadable file is named, with where its path came from', () => {
    const missing = join(dir, 'nope.json');
    assertConfigError(
      () => loadModelRegistry({ env: { ANALYST_MODELS_FILE: missing } }),
      /nope\.json/,
      /ANALYST_MODELS_FILE/,
      /no such file/,
    );
    assertConfigError(() => loadModelRegistry({ env: {}, file: dir }), /cannot read the models file/);
  });

  test('a file that is not JSON', () => {
    assertConfigError(
      () => loadModelRegistry({ env: {}, file: modelsFile('{"models": [') }),
      /not valid JSON/,
    );
  });

  test('schema errors name the field', () => {
    const load = (content: unknown) => () => loadModelRegistry({ env: {}, file: modelsFile(content) });
    const model = { id: 'm', protocol: 'tools', base_url: 'http://h/v1', api_key: SECRET };
    assertConfigError(load({ models: [{ ...model, base_url: undefined }] }), /models\[0\]\.base_url/);
    assertConfigError(
      load({ models: [{ ...model, protocol: 'chat' }] }),
      /models\[0\]\.protocol/,
      /deepanalyze/,
    );
    assertConfigError(load({ models: [{ ...model, protocol: 'offline' }] }), /models\[0\]\.protocol/);
    assertConfigError(load({ models: [{ ...model, apikey: 'x' }] }), /apikey/);
    assertConfigError(load({ models: [{ ...model, api_key_env: 'K' }] }), /api_key or api_key_env, not both/);
    assertConfigError(load({ model: [model] }), /models/);
    assertConfigError(load({ models: [{ ...model, id: 'has space' }] }), /models\[0\]\.id/);
  });

  test('a non-http base URL in the file', () => {
    const file = modelsFile({ models: [{ id: 'm', protocol: 'tools', base_url: 'ftp://h/v1' }] });
    assertConfigError(() => loadModelRegistry({ env: {}, file }), /models\[0\]\.base_url/, /http:\/\//);
  });

  test('duplicate ids, the reserved id "offline" and an unknown default', () => {
    const m = { protocol: 'tools', base_url: 'http://h/v1' };
    const load = (content: unknown) => () => loadModelRegistry({ env: {}, file: modelsFile(content) });
    assertConfigError(
      load({
        models: [
          { id: 'a', ...m },
          { id: 'a', ...m },
        ],
      }),
      /"a" is used twice/,
    );
    assertConfigError(load({ models: [{ id: 'offline', ...m }] }), /"offline"/, /built-in/);
    assertConfigError(load({ default: 'b', models: [{ id: 'a', ...m }] }), /default "b"/, /a, offline/);
  });

  test('ANALYST_MODEL_URL and ANALYST_MODEL go together', () => {
    assertConfigError(
      () =>
        loadModelRegistry({
          env: { ANALYST_MODEL_URL: vllm.ANALYST_MODEL_URL, ANALYST_MODEL_API_KEY: SECRET },
        }),
      /ANALYST_MODEL_URL is set but ANALYST_MODEL is not/,
    );
    assertConfigError(
      () => loadModelRegistry({ env: { ANALYST_MODEL: 'DeepAnalyze-8B' } }),
      /ANALYST_MODEL is set but ANALYST_MODEL_URL is not/,
    );
  });

  test('bad ANALYST_MODEL_PROTOCOL values, and one set without a model', () => {
    assertConfigError(
      () => loadModelRegistry({ env: { ...vllm, ANALYST_MODEL_PROTOCOL: 'chat' } }),
      /ANALYST_MODEL_PROTOCOL/,
      /"chat"/,
    );
    assertConfigError(
      () => loadModelRegistry({ env: { ...vllm, ANALYST_MODEL_PROTOCOL: 'offline' } }),
      /ANALYST_MODEL_PROTOCOL/,
    );
    assertConfigError(
      () => loadModelRegistry({ env: { ANALYST_MODEL_PROTOCOL: 'tools' } }),
      /ANALYST_MODEL_PROTOCOL is set/,
    );
  });

  test('a non-http ANALYST_MODEL_URL, and ANALYST_MODEL=offline', () => {
    for (const url of ['localhost:8000/v1', 'ftp://h/v1', 'not a url'])
      assertConfigError(
        () => loadModelRegistry({ env: { ...vllm, ANALYST_MODEL_URL: url, ANALYST_MODEL_API_KEY: SECRET } }),
        /ANALYST_MODEL_URL/,
        /http:\/\//,
      );
    assertConfigError(() => loadModelRegistry({ env: { ...vllm, ANALYST_MODEL: 'offline' } }), /built-in/);
  });
});
