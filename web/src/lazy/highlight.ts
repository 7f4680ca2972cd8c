import hljs from 'highlight.js/lib/core';
import python from 'highlight.js/lib/languages/python';
import sql from 'highlight.js/lib/languages/sql';

hljs.registerLanguage('python', python);
hljs.registerLanguage('sql', sql);

/** Code as highlighted HTML (highlight.js escapes the code; no markup from it survives). */
export function highlight(code: string, language: 'python' | 'sql'): string {
  return hljs.highlight(code, { language, ignoreIllegals: true }).value;
}
