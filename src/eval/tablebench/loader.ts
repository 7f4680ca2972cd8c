import { z } from 'zod';
import { readJsonLines } from '../jsonl.ts';
import type { EvalTask } from '../suite.ts';

const RecordSchema = z
  .object({
    id: z.string(),
    qtype: z.string(),
    qsubtype: z.string().default(''),
    table: z.object({ columns: z.array(z.unknown()), data: z.array(z.array(z.unknown())) }),
    question: z.string(),
    answer: z.union([z.string(), z.number()]).transform(String),
    instruction: z.string(),
  })
  .passthrough();

export interface TablebenchTask extends EvalTask {
  qsubtype: string;
  question: string;
  answer: string;
  instruction: string;
  columns: unknown[];
  rows: unknown[][];
}

/** TableBench records (`id, qtype, qsubtype, table, question, answer, instruction`), one JSON per line. */
export async function loadTablebench(path: string): Promise<TablebenchTask[]> {
  return (await readJsonLines(path, RecordSchema)).map((r) => ({
    id: r.id,
    group: r.qtype,
    qsubtype: r.qsubtype,
    question: r.question,
    answer: r.answer,
    instruction: r.instruction,
    columns: r.table.columns,
    rows: r.table.data,
  }));
}

/** The record's table as CSV (RFC 4180 quoting), for agents that read files. */
export function tableCsv(columns: readonly unknown[], rows: readonly (readonly unknown[])[]): string {
  const cell = (value: unknown) => {
    const text =
      value === null || value === undefined ? '' : typeof value === 'string' ? value : String(value);
    return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return `${[columns, ...rows].map((row) => row.map(cell).join(',')).join('\n')}\n`;
}
