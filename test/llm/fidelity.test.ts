import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ConfigurationError } from '../../src/errors/index.ts';
import { UnknownModelError } from '../../src/llm/errors/unknown-model-error.ts';
import type { ModelEntry } from '../../src/llm/model.ts';
import { loadModelRegistry, ModelRegistry } from '../../src/llm/registry.ts';
import { isReasoningModel, samplingFromWire } from '../../src/llm/sampling.ts';
import type { ScriptedModel } from '../../src/llm/scripted/index.ts';
import { chatRequests, collect, modelFor, withScriptedModel } from './helpers.ts';

const MESSAGES = [{ role: 'user' as const, content: 'hi' }];

/** The body the upstream received for one streamed request. */
async function sent(
  server: ScriptedModel,
  request: Parameters<ReturnType<typeof modelFor>['stream']>[0],
  model = modelFor(server),
): Promise<Record<string, unknown>> {
  const before = chatRequests(server).length;
  await collect(model.stream(request));
  return chatRequests(server)[before]!;
}

describe('serving DeepAnalyze faithfully: what reaches the upstream', () => {
  test('every sampling field of a request is forwarded, vLLM extras included', async () => {
    await withScriptedModel({ turns: [{ content: 'ok' }] }, async (server) => {
      const body = await sent(server, {
        messages: MESSAGES,
        ...samplingFromWire({
          temperature: 0.3,
          top_p: 0.9,
          max_tokens: 512,
          seed: 7,
          presence_penalty: 0.5,
          frequency_penalty: -0.25,
          stop: ['STOP'],
          top_k: 20,
          min_p: 0.05,
          repetition_penalty: 1.1,
          logit_bias: { '50256': -100 },
        }),
        extraBody: { add_generation_prompt: false },
      });
      assert.deepEqual(
        {
          temperature: body.temperature,
          top_p: body.top_p,
          max_tokens: body.max_tokens,
          seed: body.seed,
          presence_penalty: body.presence_penalty,
          frequency_penalty: body.frequency_penalty,
          stop: body.stop,
          top_k: body.top_k,
          min_p: body.min_p,
          repetition_penalty: body.repetition_penalty,
          logit_bias: body.logit_bias,
          add_generation_prompt: body.add_generation_prompt,
        },
        {
          temperature: 0.3,
          top_p: 0.9,
          max_tokens: 512,
          seed: 7,
          presence_penalty: 0.5,
          frequency_penalty: -0.25,
          stop: ['STOP'],
          top_k: 20,
          min_p: 0.05,
          repetition_penalty: 1.1,
          logit_bias: { '50256': -100 },
          add_generation_prompt: false,
        },
      );
    });
  });

  test('a client cannot override what the protocol needs (add_generation_prompt), nor the model or messages', async () => {
    await withScriptedModel({ turns: [{ content: 'ok' }] }, async (server) => {
      const body = await sent(server, {
        messages: MESSAGES,
        extra: { add_generation_prompt: true, model: 'other', messages: [], top_k: 5 },
        extraBody: { add_generation_prompt: false },
      });
      assert.equal(body.add_generation_prompt, false);
      assert.equal(body.model, 'scripted');
      assert.equal((body.messages as unknown[]).length, 1);
      assert.equal(body.top_k, 5);
    });
  });

  test('unset fields are not sent: the upstream keeps its own defaults', async () => {
    await withScriptedModel({ turns: [{ content: 'ok' }] }, async (server) => {
      const body = await sent(server, { messages: MESSAGES });
      for (const field of ['temperature', 'top_p', 'max_tokens', 'seed', 'stop', 'top_k'])
        assert.ok(!(field in body), `${field} was sent`);
    });
  });

  test('OpenAI reasoning models get max_completion_tokens and none of the fields they refuse', async () => {
    assert.ok(isReasoningModel('o3-mini') && isReasoningModel('o1') && isReasoningModel('gpt-5-mini'));
    assert.ok(
      !isReasoningModel('gpt-4o') &&
        !isReasoningModel('gpt-5-chat-latest') &&
        !isReasoningModel('DeepAnalyze-8B'),
    );
    await withScriptedModel({ model: 'o4-mini', turns: [{ content: 'ok', times: 3 }] }, async (server) => {
      const request = {
        messages: MESSAGES,
        maxTokens: 300,
        temperature: 0.2,
        topP: 0.5,
        presencePenalty: 1,
        stop: ['</Code>'],
        seed: 3,
      };
      const body = await sent(server, request, modelFor(server, { upstreamModel: 'o4-mini' }));
      assert.equal(body.max_completion_tokens, 300);
      for (const field of ['max_tokens', 'temperature', 'top_p', 'presence_penalty', 'stop'])
        assert.ok(!(field in body), `${field} was sent to a reasoning model`);
      assert.equal(body.seed, 3);
      // A models file can say otherwise (a server that serves its own model under an o-name).
      const plain = await sent(
        server,
        request,
        modelFor(server, { upstreamModel: 'o4-mini', reasoning: false }),
      );
      assert.equal(plain.max_tokens, 300);
      assert.equal(plain.temperature, 0.2);
    });
  });
});

describe('per-model defaults, case-insensitive ids and aliases', () => {
  let dir: string;
  let server: ScriptedModel;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'analyst-fidelity-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  async function modelsFile(models: unknown[], extra: Record<string, unknown> = {}): Promise<string> {
    const path = join(dir, `models-${Math.random().toString(16).slice(2)}.json`);
    await writeFile(path, JSON.stringify({ models, ...extra }));
    return path;
  }

  test('DeepAnalyze models sample at temperature 0.4 unless the models file or the request says otherwise', async () => {
    await withScriptedModel({ model: 'DeepAnalyze-8B', turns: [{ content: 'ok', times: 4 }] }, async (s) => {
      server = s;
      const file = await modelsFile([
        { id: 'DeepAnalyze-8B', protocol: 'deepanalyze', base_url: s.url },
        {
          id: 'da-cold',
          protocol: 'deepanalyze',
          base_url: s.url,
          model: 'DeepAnalyze-8B',
          sampling: { temperature: 0.1, top_p: 0.95, max_tokens: 2048 },
        },
        { id: 'chat', protocol: 'prompted', base_url: s.url, model: 'DeepAnalyze-8B' },
      ]);
      const registry = loadModelRegistry({ env: {}, file });
      const body = (id: string, request = {}) =>
        sent(
          server,
          { messages: MESSAGES, ...request },
          registry.languageModel(id) as ReturnType<typeof modelFor>,
        );
      assert.equal((await body('DeepAnalyze-8B')).temperature, 0.4);
      const cold = await body('da-cold');
      assert.deepEqual([cold.temperature, cold.top_p, cold.max_tokens], [0.1, 0.95, 2048]);
      const asked = await body('da-cold', { temperature: 0.7 });
      assert.deepEqual([asked.temperature, asked.top_p], [0.7, 0.95]);
      assert.ok(!('temperature' in (await body('chat'))), 'prompted models keep the upstream default');
    });
  });

  test('model ids match case-insensitively, and a models file gives aliases', async () => {
    const file = await modelsFile(
      [
        {
          id: 'DeepAnalyze-8B',
          aliases: ['da', 'DeepAnalyze'],
          protocol: 'deepanalyze',
          base_url: 'http://127.0.0.1:9/v1',
        },
        { id: 'gpt-4o', protocol: 'tools', base_url: 'http://127.0.0.1:9/v1' },
      ],
      { default: 'DA' },
    );
    const registry = loadModelRegistry({ env: {}, file });
    for (const name of ['deepanalyze-8b', 'DEEPANALYZE-8B', 'da', 'deepanalyze'])
      assert.equal(registry.get(name).id, 'DeepAnalyze-8B', name);
    assert.equal(registry.default().id, 'DeepAnalyze-8B');
    assert.equal(registry.get('GPT-4O').id, 'gpt-4o');
    assert.equal(registry.get('Offline').id, 'offline');
    assert.equal(registry.languageModel('deepanalyze-8b').id, 'DeepAnalyze-8B');
    assert.throws(() => registry.get('deepanalyze-7b'), UnknownModelError);
    assert.deepEqual(
      registry.list().map((m) => m.id),
      ['DeepAnalyze-8B', 'gpt-4o', 'offline'],
    );
  });

  test('names that collide ignoring case, or aliases of the offline analyst, are configuration errors', async () => {
    const base = { protocol: 'prompted', base_url: 'http://127.0.0.1:9/v1' };
    const twice = await modelsFile([
      { id: 'Model-A', ...base },
      { id: 'model-a', ...base },
    ]);
    assert.throws(() => loadModelRegistry({ env: {}, file: twice }), /"model-a" is used twice/);
    const alias = await modelsFile([
      { id: 'a', aliases: ['shared'], ...base },
      { id: 'b', aliases: ['SHARED'], ...base },
    ]);
    assert.throws(() => loadModelRegistry({ env: {}, file: alias }), /"SHARED" is used twice/);
    const offline = await modelsFile([{ id: 'a', aliases: ['OFFLINE'], ...base }]);
    assert.throws(
      () => loadModelRegistry({ env: {}, file: offline }),
      /alias "OFFLINE", the id of the built-in analyst/,
    );
    const entries: ModelEntry[] = [
      { id: 'x', aliases: ['y'], protocol: 'prompted', baseUrl: 'http://127.0.0.1:9/v1' },
      { id: 'Y', protocol: 'prompted', baseUrl: 'http://127.0.0.1:9/v1' },
    ];
    assert.throws(() => new ModelRegistry({ models: entries }), ConfigurationError);
  });

  test('a models file with bad sampling, grounding or reasoning settings is refused, naming the field', async () => {
    const base = { id: 'm', protocol: 'prompted', base_url: 'http://127.0.0.1:9/v1' };
    for (const [entry, field] of [
      [{ ...base, sampling: { temperature: 5 } }, 'sampling.temperature'],
      [{ ...base, sampling: { top_k: 'many' } }, 'sampling.top_k'],
      [{ ...base, sampling: { typo: 1 } }, 'typo'],
      [{ ...base, grounding: 'always' }, 'grounding'],
      [{ ...base, reasoning: 'yes' }, 'reasoning'],
    ] as const) {
      const file = await modelsFile([entry]);
      assert.throws(
        () => loadModelRegistry({ env: {}, file }),
        (error: unknown) => error instanceof ConfigurationError && error.message.includes(field),
        field,
      );
    }
  });
});
