/** Edit distance (insertions, deletions, substitutions) between two strings. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** 1 for equal strings, towards 0 as more edits are needed. */
export function similarity(a: string, b: string): number {
  const longest = Math.max(a.length, b.length);
  return longest === 0 ? 1 : 1 - editDistance(a, b) / longest;
}

/**
 * Whether two words are the same word misspelt: close enough by edits, with a first letter
 * in common, and long enough that a typo is likelier than a different word.
 */
export function fuzzyEqual(a: string, b: string): boolean {
  if (a === b) return true;
  if (a.length < 4 || b.length < 4 || a[0] !== b[0]) return false;
  return similarity(a, b) >= (Math.max(a.length, b.length) >= 8 ? 0.75 : 0.8);
}

/** Shared character pairs (Dice's coefficient): for Chinese text, which has no words to compare. */
export function bigramOverlap(a: string, b: string): number {
  const pairs = (text: string) => {
    const found = new Map<string, number>();
    for (let i = 0; i < text.length - 1; i++) {
      const pair = text.slice(i, i + 2);
      found.set(pair, (found.get(pair) ?? 0) + 1);
    }
    return found;
  };
  const left = pairs(a);
  const right = pairs(b);
  let shared = 0;
  for (const [pair, count] of left) shared += Math.min(count, right.get(pair) ?? 0);
  const total = Math.max(a.length - 1, 0) + Math.max(b.length - 1, 0);
  return total === 0 ? 0 : (2 * shared) / total;
}
