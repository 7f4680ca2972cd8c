/**
 * Reads a Python traceback out of a failed cell's output. The sandbox gives stdout and
 * stderr interleaved as a terminal shows them, so the traceback is the tail of the output
 * from its first `Traceback (most recent call last):` (a chain of exceptions stays
 * together), or, for a SyntaxError (printed without that header), from its `File` line.
 */

export interface ParsedTraceback {
  /** What the cell printed before the traceback. */
  before: string;
  /** Exception class name without its module, as Jupyter reports it: `ZeroDivisionError`. */
  ename: string;
  /** The exception's message: `division by zero`. */
  evalue: string;
  /** The traceback's lines, without line ends. */
  traceback: string[];
}

const HEADER = 'Traceback (most recent call last):';
const EXCEPTION_LINE = /^([A-Za-z_][\w.]*)(?::(?: (.*))?)?$/;
// Without a header only a name that looks like an exception is taken, not any printed word.
const BARE_EXCEPTION_LINE =
  /^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Iteration))(?:: (.*))?$/;
const TRUNCATION_NOTE = '[output truncated';

/** The traceback in `output`, or `undefined` when none can be found (e.g. output was cut). */
export function parseTraceback(output: string): ParsedTraceback | undefined {
  const lines = output.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const firstHeader = lines.indexOf(HEADER);
  const lastHeader = lines.lastIndexOf(HEADER);
  let start: number;
  let exceptionAt = -1;
  let match: RegExpExecArray | null = null;
  if (lastHeader >= 0) {
    start = firstHeader;
    for (let i = lastHeader + 1; i < lines.length && exceptionAt < 0; i++) {
      match = /^\s/.test(lines[i]!) ? null : EXCEPTION_LINE.exec(lines[i]!);
      if (match) exceptionAt = i;
    }
  } else {
    for (let i = lines.length - 1; i >= 0 && exceptionAt < 0; i--) {
      match = BARE_EXCEPTION_LINE.exec(lines[i]!);
      if (match) exceptionAt = i;
    }
    start = exceptionAt;
    for (let j = exceptionAt - 1; j >= 0 && /^\s/.test(lines[j]!); j--) {
      if (lines[j]!.startsWith('  File "')) start = j;
    }
  }
  if (exceptionAt < 0 || !match) return undefined;

  const rest = lines.slice(exceptionAt + 1);
  const cut = rest.findIndex((line) => line.startsWith(TRUNCATION_NOTE));
  const continuation = cut >= 0 ? rest.slice(0, cut) : rest;
  const evalue = [match[2] ?? '', ...continuation].join('\n').trimEnd();
  const before = lines.slice(0, start).join('\n');
  return {
    before: before ? `${before}\n` : '',
    ename: match[1]!.split('.').pop()!,
    evalue,
    traceback: lines.slice(start).filter((line) => !line.startsWith(TRUNCATION_NOTE)),
  };
}
