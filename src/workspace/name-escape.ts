import { InvalidInputError } from '../errors/index.ts';

/**
 * File names are bytes; API paths are text. A name that is not valid UTF-8 (a cell can make
 * one) is shown with each byte outside a valid sequence as `\xNN`, and a backslash as `\\`,
 * so every file is listed and the listed name downloads and deletes it. Names that are valid
 * UTF-8 without a backslash, nearly all of them, are shown as they are.
 */
export function escapeName(name: Buffer): string {
  let out = '';
  let at = 0;
  while (at < name.length) {
    const length = sequenceLength(name, at);
    if (length === 0) {
      out += `\\x${name[at]!.toString(16).padStart(2, '0')}`;
      at += 1;
      continue;
    }
    const text = name.toString('utf8', at, at + length);
    out += text === '\\' ? '\\\\' : text;
    at += length;
  }
  return out;
}

/**
 * A path component as the filesystem name it stands for: the text itself, or the bytes when
 * it holds escapes. A backslash that starts neither `\\` nor `\xNN` is refused.
 */
export function unescapeName(part: string): string | Buffer {
  if (!part.includes('\\')) return part;
  const bytes: Buffer[] = [];
  let at = 0;
  while (at < part.length) {
    const slash = part.indexOf('\\', at);
    if (slash < 0) {
      bytes.push(Buffer.from(part.slice(at)));
      break;
    }
    bytes.push(Buffer.from(part.slice(at, slash)));
    const next = part[slash + 1];
    const hex = part.slice(slash + 2, slash + 4);
    if (next === '\\') {
      bytes.push(Buffer.from('\\'));
      at = slash + 2;
    } else if (next === 'x' && /^[0-9a-fA-F]{2}$/.test(hex)) {
      bytes.push(Buffer.from([Number.parseInt(hex, 16)]));
      at = slash + 4;
    } else {
      throw new InvalidInputError(
        `workspace paths use / between folders; a backslash in a name is written \\\\, a byte that is not UTF-8 \\xNN (got ${part})`,
        { param: 'path' },
      );
    }
  }
  const name = Buffer.concat(bytes);
  if (name.includes(0)) throw new InvalidInputError('a workspace path cannot contain NUL', { param: 'path' });
  return name;
}

/** The length of the valid UTF-8 sequence at `at` (1-4), or 0 when the byte starts none. */
function sequenceLength(bytes: Buffer, at: number): number {
  const first = bytes[at]!;
  if (first < 0x80) return 1;
  let length: number;
  let min: number;
  if (first >= 0xc2 && first <= 0xdf) [length, min] = [2, 0x80];
  else if (first >= 0xe0 && first <= 0xef) [length, min] = [3, 0x800];
  else if (first >= 0xf0 && first <= 0xf4) [length, min] = [4, 0x10000];
  else return 0;
  if (at + length > bytes.length) return 0;
  let code = first & (0xff >> (length + 1));
  for (let i = 1; i < length; i++) {
    const byte = bytes[at + i]!;
    if ((byte & 0xc0) !== 0x80) return 0;
    code = (code << 6) | (byte & 0x3f);
  }
  if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return length;
}
