import { z } from 'zod';
import type { Plan } from '../plan.ts';
import type { CodeContext } from './code.ts';

export type Language = 'en' | 'zh';

/** A table a cell shared (`DataFrame.to_dict("split")`), read leniently. */
export const SharedTable = z.object({ columns: z.array(z.unknown()), data: z.array(z.array(z.unknown())) });

/** A shared table as the answer shows it. */
export function tableOf(value: unknown): { columns: string[]; rows: unknown[][] } | undefined {
  const parsed = SharedTable.safeParse(value);
  return parsed.success ? { columns: parsed.data.columns.map(String), rows: parsed.data.data } : undefined;
}

/** One cell the analyst runs, with what it says before it. */
export interface PlannedCell {
  purpose: 'compute' | 'check' | 'chart';
  /** A sentence or two before the cell: what this step does and why. */
  analyze: string;
  /** The analysis, as the user sees it (studio, notebook, report): plain pandas/DuckDB code. */
  code: string;
  /**
   * The `share(...)` call that hands the values `code` computed to the written answer. It runs
   * after `code`, in its namespace, but is not part of the cell shown: it is plumbing, and the
   * code shown must run as it is (an edited re-run, a downloaded notebook).
   */
  share?: string;
}

/** What the answer says, built only from the values the cells printed and shared. */
export interface Finding {
  /** One or two sentences quoting the computed values. */
  summary: string;
  /** The supporting table, as printed. */
  table?: { columns: string[]; rows: unknown[][] };
  /** What else the checks found (a reversed comparison within groups, ties, rows dropped). */
  notes: string[];
  /** The answer's values, for an answer line a prompt asks for ("Final Answer: a, b"). */
  items: string[];
}

/** The values each cell shared (undefined for a cell that shared none), in order. */
export type Shared = (Record<string, unknown> | undefined)[];

/** How one kind of plan becomes cells, and their output an answer. */
export interface Recipe<P extends Plan> {
  cells(plan: P, context: CodeContext, language: Language): PlannedCell[];
  /** Undefined when the cells did not produce what the answer needs. */
  answer(plan: P, shared: Shared, language: Language): Finding | undefined;
}

/** English or Chinese. */
export function say(language: Language, en: string, zh: string): string {
  return language === 'zh' ? zh : en;
}

/** A value as the cell printed it: numbers as Python wrote them, text as is. */
export function show(value: unknown): string {
  if (value === null || value === undefined) return '–';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '–';
  return String(value);
}

/** “name” in quotes, for column names in prose. */
export function q(name: string): string {
  return `“${name}”`;
}
