import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deflateSync } from 'node:zlib';
import { decodableRaster } from '../../src/report/image-check.ts';
import { proseMarkdown } from '../../src/report/markdown-text.ts';
import { scrubHostPaths } from '../../src/sandbox/docker/engine.ts';

const PNG_1PX = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** A PNG with the given header and image data, with correct CRCs. */
function png(width: number, height: number, raw: Buffer): Buffer {
  const chunk = (type: string, body: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(body.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0);
    return Buffer.concat([head, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  return Buffer.concat([
    PNG_1PX.subarray(0, 8),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

describe('images a report may embed', () => {
  test('a real PNG decodes', () => {
    assert.equal(decodableRaster(PNG_1PX), 'image/png');
    assert.equal(decodableRaster(png(4, 2, Buffer.alloc(2 * (1 + 16)))), 'image/png');
  });
  test('a PNG signature followed by zeros (a sparse fake) does not', () => {
    assert.equal(decodableRaster(Buffer.concat([PNG_1PX.subarray(0, 8), Buffer.alloc(4096)])), undefined);
  });
  test('a broken CRC, a missing IEND or short image data does not', () => {
    const broken = Buffer.from(PNG_1PX);
    broken[30] = (broken[30] ?? 0) ^ 0xff;
    assert.equal(decodableRaster(broken), undefined);
    assert.equal(decodableRaster(PNG_1PX.subarray(0, PNG_1PX.length - 12)), undefined);
    assert.equal(decodableRaster(png(4, 2, Buffer.alloc(10))), undefined);
  });
  test('a decompression bomb (huge dimensions, tiny file) is refused without inflating it', () => {
    const bomb = png(100_000, 100_000, Buffer.alloc(1000));
    const started = performance.now();
    assert.equal(decodableRaster(bomb), undefined);
    assert.ok(performance.now() - started < 200);
  });
});

describe('text a tenant may read', () => {
  test('host paths in engine errors are scrubbed; the engine socket stays', () => {
    const message =
      'error mounting "/work/data/workspaces/ws-abc" to rootfs at "/workspace": no engine at /var/run/docker.sock';
    assert.equal(
      scrubHostPaths(message, ['/var/run/docker.sock']),
      'error mounting "<host path>" to rootfs at "/workspace": no engine at /var/run/docker.sock',
    );
  });
  test('raw HTML in model prose shows as text in Markdown; code stays code', () => {
    const prose =
      'Look: <script>alert(1)</script> and <img src=x onerror=alert(2)>, 3 < 4.\n\n```html\n<b>kept</b>\n```\nand `<i>span</i>`';
    const safe = proseMarkdown(prose);
    assert.ok(!/<script|<img/.test(safe.split('```')[0]!), safe);
    assert.match(safe, /&lt;script>alert\(1\)&lt;\/script>/);
    assert.match(safe, /3 < 4/);
    assert.match(safe, /```html\n<b>kept<\/b>\n```/);
    assert.match(safe, /`<i>span<\/i>`/);
  });
});
