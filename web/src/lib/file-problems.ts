import type { Preview } from '../api/types.ts';
import { currentLanguage, t } from '../i18n/i18n.ts';

/**
 * What is wrong with a previewed file, in the UI's language: the problem's code picks the
 * catalogue's sentence. In English, and for a problem this UI does not know (a newer server's),
 * the server's own sentence, which the analysis writes too (src/contract/file-problems.ts).
 */
export function problemText(preview: Pick<Preview, 'message' | 'problem'>): string | undefined {
  const { problem, message } = preview;
  if (!problem || currentLanguage() === 'en') return message;
  switch (problem.code) {
    case 'empty':
      return t('problem.empty', { name: problem.name });
    case 'header-only':
      return t('problem.header-only', { name: problem.name, columns: problem.columns });
    case 'not-text':
      return t('problem.not-text', { name: problem.name });
    case 'too-many-fields':
      return t('problem.too-many-fields', {
        name: problem.name,
        line: problem.line,
        saw: problem.saw,
        expected: problem.expected,
      });
    default:
      return message;
  }
}
