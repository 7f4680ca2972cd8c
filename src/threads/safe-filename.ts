import { InvalidInputError } from '../errors/index.ts';

const MAX_NAME_BYTES = 200;

/**
 * A file name safe to create in a workspace: the last path segment of what the client sent,
 * well-formed Unicode (stray surrogates become U+FFFD), without control characters, not
 * `.`/`..`, at most 200 bytes — shortened by whole characters, keeping the extension.
 */
export function safeFilename(raw: string | undefined): string {
  const sent = (raw ?? '').toWellFormed();
  const base = sent.split(/[/\\]/).pop() ?? '';
  const cleaned = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  if (cleaned === '' || cleaned === '.' || cleaned === '..') {
    const shown = sent.length > 60 ? `${sent.slice(0, 60)}…` : sent;
    throw new InvalidInputError(`${JSON.stringify(shown)} is not a usable file name`, { param: 'file' });
  }
  if (Buffer.byteLength(cleaned) <= MAX_NAME_BYTES) return cleaned;
  const dot = cleaned.lastIndexOf('.');
  const extension = dot > 0 && cleaned.length - dot <= 16 ? cleaned.slice(dot) : '';
  let budget = MAX_NAME_BYTES - Buffer.byteLength(extension);
  let stem = '';
  for (const character of cleaned.slice(0, cleaned.length - extension.length)) {
    budget -= Buffer.byteLength(character);
    if (budget < 0) break;
    stem += character;
  }
  return stem + extension;
}

/** `name (2).ext` style alternatives, for when a different file already has the name. */
export function numberedName(name: string, n: number): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)} (${n})${name.slice(dot)}` : `${name} (${n})`;
}
