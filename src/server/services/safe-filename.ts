import { InvalidInputError } from '../../errors/index.ts';

/**
 * A file name safe to create in a workspace: the last path segment of what the client sent,
 * without control characters, not `.`/`..`, at most 200 bytes. Non-UTF-8 names arrive as
 * U+FFFD from the multipart parser and are kept that way.
 */
export function safeFilename(raw: string | undefined): string {
  const base = (raw ?? '').split(/[/\\]/).pop() ?? '';
  const cleaned = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  if (cleaned === '' || cleaned === '.' || cleaned === '..') {
    throw new InvalidInputError(`"${raw ?? ''}" is not a usable file name`, { param: 'file' });
  }
  let name = cleaned;
  while (Buffer.byteLength(name) > 200) name = name.slice(0, -1);
  return name;
}

/** `name (2).ext` style alternatives, for when a different file already has the name. */
export function numberedName(name: string, n: number): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)} (${n})${name.slice(dot)}` : `${name} (${n})`;
}
