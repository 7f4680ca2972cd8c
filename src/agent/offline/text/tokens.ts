import { fold, STOP_WORDS, singular } from './words.ts';

/** One word of a text, with where it is (offsets into the text). */
export interface Token {
  /** Lower case, accents removed, singular. */
  word: string;
  start: number;
  end: number;
}

// Letters of other scripts, never Han: a Latin run stops where Chinese text begins, so a
// column name written into a Chinese sentence ("各region的salesAmount") is a word of its own.
const TOKEN =
  /\p{Script=Han}|\p{Lu}?[\p{Ll}\p{M}]+|\p{Lu}+(?![\p{Ll}])|\p{N}+|(?:(?!\p{Script=Han})[\p{L}\p{M}])+|%/gu;
const WORD = /\p{Script=Han}|(?:(?!\p{Script=Han})[\p{L}\p{M}])+|\p{N}+|%/gu;
/** Words written more than one way, read as one. */
const SAME: Record<string, string> = {
  '%': 'percent',
  percentage: 'percent',
  pct: 'percent',
  per_cent: 'percent',
};

/**
 * The words of a text with their offsets. Chinese characters are one token each (so a
 * Chinese name matches as a run of them). `splitCamel` also splits "avgDailyFlights" into
 * avg, daily, flight — right for identifiers, wrong for names such as "McCain" in prose.
 */
export function tokenize(text: string, options: { splitCamel?: boolean } = {}): Token[] {
  const pattern = options.splitCamel ? TOKEN : WORD;
  const tokens: Token[] = [];
  for (const match of text.matchAll(new RegExp(pattern.source, 'gu'))) {
    const folded = singular(fold(match[0]));
    const word = SAME[folded] ?? folded;
    if (word) tokens.push({ word, start: match.index, end: match.index + match[0].length });
  }
  return tokens;
}

/** A name as the word sequences it may be written as: as is, and split at camelCase. */
export function nameForms(name: string): string[][] {
  const plain = tokenize(name).map((t) => t.word);
  const camel = tokenize(name, { splitCamel: true }).map((t) => t.word);
  return camel.join(' ') === plain.join(' ') ? [plain] : [plain, camel];
}

/** The words that carry the meaning of a name; all of them when every one is a stop word. */
export function contentWords(words: string[]): string[] {
  const content = words.filter((w) => !STOP_WORDS.has(w));
  return content.length > 0 ? content : words;
}
