import { pythonRepr } from './python-repr.ts';

/**
 * The program DS-1000's authors run for one answer (test_ds1000.py): the task's
 * `code_context`, then `code = repr(answer)`, `test_execution(code)`, and `test_string(code)`
 * where the context defines it. It passes when it runs to the end without raising.
 */
export function assembleProgram(codeContext: string, answer: string): string {
  return (
    `${codeContext}\n` +
    `code = ${pythonRepr(answer)}\n` +
    'test_execution(code)\n' +
    (codeContext.includes('test_string(') ? 'test_string(code)\n' : '\n')
  );
}
