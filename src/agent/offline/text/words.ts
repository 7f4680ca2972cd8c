/**
 * Words as the offline analyst compares them: lower case, split at spaces, punctuation,
 * underscores and camelCase, plurals reduced to the singular, and Chinese text kept as
 * runs of characters (it has no spaces to split at).
 */

const IRREGULAR: Record<string, string> = {
  men: 'man',
  women: 'woman',
  people: 'person',
  children: 'child',
  feet: 'foot',
  teeth: 'tooth',
  mice: 'mouse',
  data: 'data',
  media: 'media',
  criteria: 'criterion',
  indices: 'index',
};

const KEEP = new Set([
  'is',
  'was',
  'has',
  'does',
  'this',
  'its',
  'us',
  'gas',
  'bus',
  'plus',
  'less',
  'class',
]);

/** The singular of an English word ("cities" → "city", "matches" → "match"); others unchanged. */
export function singular(word: string): string {
  const irregular = IRREGULAR[word];
  if (irregular) return irregular;
  if (word.length <= 3 || KEEP.has(word) || /(ss|us|is|ous)$/.test(word)) return word;
  if (/[^aeiou]ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ches|shes|xes|zes|sses)$/.test(word)) return word.slice(0, -2);
  if (/[^s]s$/.test(word)) return word.slice(0, -1);
  return word;
}

/** Splits an identifier or a phrase into lower-case words: "avgDailyFlights" → avg, daily, flights. */
export function splitWords(text: string): string[] {
  const spaced = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([\p{Script=Han}])([A-Za-z0-9])|([A-Za-z0-9])([\p{Script=Han}])/gu, '$1$3 $2$4');
  return spaced
    .toLowerCase()
    .split(/[^\p{L}\p{N}.%]+|(?<![0-9])\.|\.(?![0-9])/u)
    .map((w) => w.replace(/^[.%]+|\.+$/g, ''))
    .filter((w) => w.length > 0);
}

/** Words in a comparable form: split, and singular. */
export function normalWords(text: string): string[] {
  return splitWords(text).map(singular);
}

/** True when the text has Chinese characters. */
export function hasChinese(text: string): boolean {
  return /\p{Script=Han}/u.test(text);
}

/** Text folded for comparing values: lower case, accents removed, spaces squeezed. */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[\s_]+/g, ' ')
    .trim();
}

/** Words that carry no meaning of their own in a question about data. */
export const STOP_WORDS = new Set(
  (
    'a an the of in on at to for by with from and or is are was were be been being do does did has have had ' +
    'what which who whom whose when where why how that this these those there their its it they them ' +
    'than then as into per each all any some me my our your you i we can could would should will shall ' +
    'please tell show give find list according table data value values number amount'
  ).split(' '),
);
