import type { ConnectionKind } from './connection.ts';
import { ConnectionError } from './errors/connection-error.ts';

/**
 * The first of two guards (the second is the database's own read-only transaction): one
 * statement per call, and only a statement that reads. A lexical scan, aware of quotes and
 * comments, so a `;` or `FOR UPDATE` inside a string is no reason to refuse and one outside
 * is never missed.
 */

/** Statements that only read; everything else (DML, DDL, COPY, CALL, SET, BEGIN, PRAGMA…) is refused. */
const READING = new Set(['select', 'with', 'values', 'table', 'show', 'describe', 'desc']);

/** Words that make a reading statement lock or write (`SELECT … FOR UPDATE`, `SELECT … INTO OUTFILE`). */
const LOCKING = [
  /\bfor\s+(no\s+key\s+)?update\b/,
  /\bfor\s+(key\s+)?share\b/,
  /\block\s+in\s+share\s+mode\b/,
  /\binto\b/,
];

/** The statement with comments removed and every quoted text replaced by `''` (for the checks). */
function skeleton(sql: string, kind: ConnectionKind): { text: string; firstSemicolon: number } {
  let out = '';
  let firstSemicolon = -1;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (c === '-' && next === '-') {
      while (i < sql.length && sql[i] !== '\n') i++;
      out += ' ';
    } else if (c === '#' && kind === 'mysql') {
      while (i < sql.length && sql[i] !== '\n') i++;
      out += ' ';
    } else if (c === '/' && next === '*') {
      // MySQL runs the inside of /*! … */ as SQL: never let a statement hide there.
      if (kind === 'mysql' && sql[i + 2] === '!') {
        throw new ConnectionError(
          'connection_statement',
          'MySQL executable comments (/*! … */) are not allowed',
        );
      }
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
      out += ' ';
      continue;
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < sql.length) {
        if (sql[j] === '\\' && kind === 'mysql') j += 2;
        else if (sql[j] === c && sql[j + 1] === c) j += 2;
        else if (sql[j] === c) break;
        else j++;
      }
      i = j + 1;
      out += c === "'" ? "''" : '""';
      continue;
    } else if (c === '$' && kind === 'postgres') {
      const tag = /^\$[A-Za-z_]?[A-Za-z0-9_]*\$/.exec(sql.slice(i));
      if (tag) {
        const end = sql.indexOf(tag[0], i + tag[0].length);
        i = end < 0 ? sql.length : end + tag[0].length;
        out += "''";
        continue;
      }
      out += c;
    } else {
      if (c === ';' && firstSemicolon < 0) firstSemicolon = i;
      out += c;
    }
    i++;
  }
  return { text: out, firstSemicolon };
}

/**
 * The statement to run (without a trailing `;`), or ConnectionError: `connection_statement`
 * for none or several, `connection_read_only` for one that does not only read.
 */
export function readOnlyStatement(sql: string, kind: ConnectionKind): string {
  const { text: bare, firstSemicolon } = skeleton(sql, kind);
  const parts = bare.split(';');
  const nonEmpty = parts.filter((p) => p.trim() !== '');
  if (nonEmpty.length === 0) throw new ConnectionError('connection_statement', 'the SQL is empty');
  if (nonEmpty.length > 1 || (firstSemicolon >= 0 && parts[0]!.trim() === '')) {
    throw new ConnectionError(
      'connection_statement',
      'one statement per call: send a single SELECT (no `;` between statements)',
    );
  }
  const text = nonEmpty[0]!.toLowerCase();
  const first = /^\s*\(*\s*([a-z]+)/.exec(text)?.[1] ?? '';
  if (!READING.has(first)) {
    throw new ConnectionError(
      'connection_read_only',
      `connections are read-only: only SELECT, WITH, VALUES, TABLE, SHOW and DESCRIBE statements run (this one starts with ${first.toUpperCase() || 'nothing'})`,
    );
  }
  if (LOCKING.some((re) => re.test(text))) {
    throw new ConnectionError(
      'connection_read_only',
      'connections are read-only: SELECT … FOR UPDATE/SHARE, LOCK IN SHARE MODE and SELECT … INTO are not allowed',
    );
  }
  // The original text (strings intact) up to its one `;` outside quotes and comments, if any.
  return (firstSemicolon < 0 ? sql : sql.slice(0, firstSemicolon)).trim();
}
