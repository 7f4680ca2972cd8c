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
