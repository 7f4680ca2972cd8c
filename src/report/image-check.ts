import { inflateSync } from 'node:zlib';
import { type RasterMime, sniffRaster } from './images.ts';

/**
 * Whether image bytes a cell wrote really are a picture, before a report embeds them. A
 * cell can write anything under a `.png` name — a signature followed by zeros, a sparse file
 * of gigabytes, a decompression bomb — so the structure is read, bounded: every PNG chunk
 * and its CRC, the image data inflated to exactly the size its header promises (and no
 * more than `maxPixels` pixels); for JPEG, GIF and WebP the header, the dimensions and the
 * end marker. Returns the type, or undefined when the bytes are not a usable image.
 */
export function decodableRaster(bytes: Buffer, maxPixels = 40_000_000): RasterMime | undefined {
  const mime = sniffRaster(bytes);
  if (!mime) return undefined;
  try {
    switch (mime) {
      case 'image/png':
        return checkPng(bytes, maxPixels) ? mime : undefined;
      case 'image/jpeg':
        return checkJpeg(bytes, maxPixels) ? mime : undefined;
      case 'image/gif':
        return checkGif(bytes, maxPixels) ? mime : undefined;
      case 'image/webp':
        return bytes.length >= 20 &&
          bytes.readUInt32LE(4) + 8 === bytes.length &&
          /^VP8[ LX]$/.test(bytes.toString('latin1', 12, 16))
          ? mime
          : undefined;
    }
  } catch {
    return undefined;
  }
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

function checkPng(bytes: Buffer, maxPixels: number): boolean {
  let at = 8;
  let header: { width: number; height: number; depth: number; colour: number; interlace: number } | undefined;
  const data: Buffer[] = [];
  let ended = false;
  while (at + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    if (!/^[A-Za-z]{4}$/.test(type) || at + 12 + length > bytes.length) return false;
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (crc32(bytes.subarray(at + 4, at + 8 + length)) !== bytes.readUInt32BE(at + 8 + length)) return false;
    if (header === undefined && type !== 'IHDR') return false;
    if (type === 'IHDR') {
      if (length !== 13) return false;
      header = {
        width: body.readUInt32BE(0),
        height: body.readUInt32BE(4),
        depth: body[8]!,
        colour: body[9]!,
        interlace: body[12]!,
      };
    } else if (type === 'IDAT') {
      data.push(body);
    } else if (type === 'IEND') {
      ended = true;
      break;
    }
    at += 12 + length;
  }
  if (!header || !ended || data.length === 0) return false;
  const channels = CHANNELS[header.colour];
  if (!channels || header.width === 0 || header.height === 0) return false;
  if (header.width * header.height > maxPixels) return false;
  const rowBytes = Math.ceil((header.width * channels * header.depth) / 8);
  // Interlaced images have seven passes of unequal rows: bound them, do not size them exactly.
  const expected = header.interlace ? undefined : header.height * (rowBytes + 1);
  const limit = expected ?? header.height * (rowBytes + 1) * 2 + 1024;
  const raw = inflateSync(Buffer.concat(data), { maxOutputLength: limit });
  return expected === undefined ? raw.length > 0 : raw.length === expected;
}

function checkJpeg(bytes: Buffer, maxPixels: number): boolean {
  if (bytes[bytes.length - 2] !== 0xff || bytes[bytes.length - 1] !== 0xd9) return false;
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return false;
    const marker = bytes[at + 1]!;
    const length = bytes.readUInt16BE(at + 2);
    // SOF0–SOF15 but DHT (C4), JPG (C8) and DAC (CC) carry the frame's dimensions.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const height = bytes.readUInt16BE(at + 5);
      const width = bytes.readUInt16BE(at + 7);
      return width > 0 && height > 0 && width * height <= maxPixels;
    }
    at += 2 + length;
  }
  return false;
}

function checkGif(bytes: Buffer, maxPixels: number): boolean {
  const width = bytes.readUInt16LE(6);
  const height = bytes.readUInt16LE(8);
  return width > 0 && height > 0 && width * height <= maxPixels && bytes[bytes.length - 1] === 0x3b;
}

let table: Uint32Array | undefined;

/** CRC-32 as PNG uses it (zlib.crc32 arrived after Node 20). */
function crc32(bytes: Buffer): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = table[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
