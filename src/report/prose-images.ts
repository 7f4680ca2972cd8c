import type { Artifact } from '../sandbox/sandbox.ts';

/**
 * Images in model prose (an answer's `![chart](sales.png)`) that name one of the thread's
 * artifacts. A document resolves them the way it shows charts (a data URI in HTML and in a
 * downloaded Markdown report, a cell attachment in a notebook), so the chart sits beside the
 * answer that talks about it and the document stands alone once downloaded.
 */

/** The Markdown that replaces one image reference (given its alt text), or `undefined` to leave it as written. */
export type ProseImageResolver = (artifact: Artifact, alt: string) => Promise<string | undefined>;

// `![alt](destination "title")` or `![alt](<destination>)`; alt text without brackets, as models write it.
const IMAGE = /!\[([^\]\n]*)\]\(\s*(<[^>\n]*>|[^\s()]+)(?:\s+"[^"\n]*")?\s*\)/g;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

// A thread's file download URL, as the studio and the offline analyst write answer images.
const FILE_URL = /^(?:https?:\/\/[^/]+)?\/v1\/threads\/[^/]+\/files\//i;

/**
 * The artifact an image destination names: its path, `./path`, `workspace/path`, a thread
 * file URL (`/v1/threads/<id>/files/<path>`), or a unique file name.
 */
export function artifactForDestination(destination: string, artifacts: Artifact[]): Artifact | undefined {
  let path = destination.replace(/^<|>$/g, '').replace(FILE_URL, '');
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('/') || path.startsWith('#') || path === '')
    return undefined;
  path = path
    .replace(/^\.\//, '')
    .replace(/^workspace\//, '')
    .split('#')[0]!
    .split('?')[0]!;
  try {
    path = decodeURIComponent(path);
  } catch {
    // Not percent-encoded after all: the name as written.
  }
  // Documents may see artifacts under a prefix (`../`, a download URL): compare the tail.
  const matches = artifacts.filter((a) => a.path === path || a.path.endsWith(`/${path}`));
  const exact = matches.find((a) => a.path === path);
  if (exact) return exact;
  return matches.length === 1 ? matches[0] : undefined;
}

/**
 * `text` with every image that names an artifact pointed where `resolve` says, outside code
 * blocks and code spans; `shown` lists the artifacts it placed (a document need not repeat them).
 */
export async function resolveProseImages(
  text: string,
  artifacts: Artifact[],
  resolve: ProseImageResolver,
): Promise<{ text: string; shown: Artifact[] }> {
  const shown: Artifact[] = [];
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const marks = FENCE.exec(line)?.[1];
    if (marks) {
      if (fence === undefined) fence = marks;
      else if (marks[0] === fence[0] && marks.length >= fence.length) fence = undefined;
      out.push(line);
      continue;
    }
    if (fence !== undefined || !line.includes('![')) {
      out.push(line);
      continue;
    }
    out.push(await resolveLine(line, artifacts, resolve, shown));
  }
  return { text: out.join('\n'), shown };
}

async function resolveLine(
  line: string,
  artifacts: Artifact[],
  resolve: ProseImageResolver,
  shown: Artifact[],
): Promise<string> {
  // Code spans stay as written: split them out and rewrite only the text between.
  const pieces = line.split(/(`+[^`]*`+)/);
  for (let i = 0; i < pieces.length; i += 2) {
    const piece = pieces[i]!;
    let rewritten = '';
    let last = 0;
    for (const match of piece.matchAll(IMAGE)) {
      const [whole, alt, destination] = match;
      const artifact = artifactForDestination(destination!, artifacts);
      const replacement = artifact ? await resolve(artifact, alt!) : undefined;
      rewritten += piece.slice(last, match.index);
      if (artifact && replacement !== undefined) {
        rewritten += replacement;
        if (!shown.includes(artifact)) shown.push(artifact);
      } else rewritten += whole;
      last = match.index + whole.length;
    }
    pieces[i] = rewritten + piece.slice(last);
  }
  return pieces.join('');
}
