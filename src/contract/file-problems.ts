import { z } from 'zod';

/**
 * What is wrong with a data file, in the words the preview (server) and the offline analyst
 * (src/agent/offline/python/look.py, which writes the same sentences) both use, so a user reads
 * one statement wherever they meet the file (issue 31, defect 5). Each says what to do.
 */
export const fileProblem = {
  empty: (name: string) => `${name} is empty (0 bytes): there is no table in it. Upload the file again.`,
  headerOnly: (name: string, columns: number) =>
    `${name} has a header (${columns} column${columns === 1 ? '' : 's'}) and no rows of data: there is nothing to analyse.`,
  notText: (name: string) =>
    `${name} is not a text file (it holds binary data), so it cannot be read as a table. Is it the right file, or another format renamed?`,
  tooManyFields: (name: string, line: number, saw: number, expected: number) =>
    `${name} is malformed: line ${line} has ${saw} fields where the header has ${expected} (a missing quote or an extra delimiter?), so it cannot be read as a table as it is.`,
};

/**
 * The same problem as data (a preview's `problem`, beside its English `message`): a stable
 * code and the numbers in the sentence, so a front end can say it in its own language.
 */
export const FileProblemSchema = z.discriminatedUnion('code', [
  z.object({ code: z.literal('empty'), name: z.string() }),
  z.object({ code: z.literal('header-only'), name: z.string(), columns: z.number().int() }),
  z.object({ code: z.literal('not-text'), name: z.string() }),
  z.object({
    code: z.literal('too-many-fields'),
    name: z.string(),
    line: z.number().int(),
    saw: z.number().int(),
    expected: z.number().int(),
  }),
]);
export type FileProblem = z.infer<typeof FileProblemSchema>;

/** The English sentence of a problem (`fileProblem`'s). */
export function fileProblemMessage(problem: FileProblem): string {
  switch (problem.code) {
    case 'empty':
      return fileProblem.empty(problem.name);
    case 'header-only':
      return fileProblem.headerOnly(problem.name, problem.columns);
    case 'not-text':
      return fileProblem.notText(problem.name);
    case 'too-many-fields':
      return fileProblem.tooManyFields(problem.name, problem.line, problem.saw, problem.expected);
  }
}
