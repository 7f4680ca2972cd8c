import { randomHex } from './random-hex.ts';

/** Ids as DeepAnalyze's API makes them: a prefix and 24 hex digits, e.g. `thread-…`, `file-…`. */
export function newId(prefix: 'thread' | 'file' | 'msg' | 'run' | 'chatcmpl'): string {
  return `${prefix}-${randomHex(12)}`;
}

export const ID_PATTERN = {
  thread: /^thread-[0-9a-f]{24}$/,
  file: /^file-[0-9a-f]{24}$/,
};
