/** A scripted OpenAI-compatible model server (vLLM-like) for tests and demos. */
export {
  loadScriptFile,
  type Predicate,
  parseScript,
  type Script,
  type ScriptInput,
  type Turn,
} from './script.ts';
export {
  type RecordedRequest,
  type ScriptedModel,
  type ScriptedModelOptions,
  startScriptedModel,
} from './server.ts';
