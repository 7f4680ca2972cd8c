/**
 * `difflib.SequenceMatcher(None, a, b).ratio()` from Python's standard library, for strings:
 * 2·M / (len(a) + len(b)), M the characters in the matching blocks found by repeatedly
 * taking the longest common block (leftmost in a, then in b) and recursing on both sides.
 * Like difflib, when b has 200 characters or more, a character found more than once per
 * hundred characters of b ("popular", its autojunk heuristic) never takes part in a match.
 */
export function sequenceRatio(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  const total = left.length + right.length;
  if (total === 0) return 1;
  return (2 * matchingCharacters(left, right)) / total;
}

function matchingCharacters(a: string[], b: string[]): number {
  const b2j = new Map<string, number[]>();
  b.forEach((char, j) => {
    const list = b2j.get(char);
    if (list) list.push(j);
    else b2j.set(char, [j]);
  });
  if (b.length >= 200) {
    const popular = Math.floor(b.length / 100) + 1;
    for (const [char, list] of b2j) if (list.length > popular) b2j.delete(char);
  }
  let matched = 0;
  const queue: Array<[number, number, number, number]> = [[0, a.length, 0, b.length]];
  while (queue.length > 0) {
    const [alo, ahi, blo, bhi] = queue.pop()!;
    const [i, j, k] = longestMatch(a, b2j, alo, ahi, blo, bhi);
    if (k === 0) continue;
    matched += k;
    if (alo < i && blo < j) queue.push([alo, i, blo, j]);
    if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
  }
  return matched;
}

/** difflib's find_longest_match without junk: the longest block, earliest in a, then in b. */
function longestMatch(
  a: string[],
  b2j: Map<string, number[]>,
  alo: number,
  ahi: number,
  blo: number,
  bhi: number,
): [number, number, number] {
  let besti = alo;
  let bestj = blo;
  let bestsize = 0;
  let lengths = new Map<number, number>();
  for (let i = alo; i < ahi; i++) {
    const next = new Map<number, number>();
    for (const j of b2j.get(a[i]!) ?? []) {
      if (j < blo) continue;
      if (j >= bhi) break;
      const k = (lengths.get(j - 1) ?? 0) + 1;
      next.set(j, k);
      if (k > bestsize) {
        besti = i - k + 1;
        bestj = j - k + 1;
        bestsize = k;
      }
    }
    lengths = next;
  }
  return [besti, bestj, bestsize];
}
