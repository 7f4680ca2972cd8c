import assert from 'node:assert/strict';
import { Duplex } from 'node:stream';
import { describe, test } from 'node:test';
import { KernelChannel, KernelLostError } from '../../src/sandbox/kernel-channel.ts';

/** A stand-in for Docker's attach stream: we play the kernel's side. */
class FakeAttach extends Duplex {
  readonly written: Buffer[] = [];
  override _read(): void {}
  override _write(chunk: Buffer, _encoding: string, callback: () => void): void {
    this.written.push(chunk);
    callback();
  }
  /** Sends kernel stdout (stream 1) or stderr (stream 2) bytes, multiplexed as Docker does. */
  emitStream(stream: 1 | 2, payload: Buffer): void {
    const header = Buffer.alloc(8);
    header[0] = stream;
    header.writeUInt32BE(payload.length, 4);
    this.push(Buffer.concat([header, payload]));
  }
  emitFrame(kind: string, body: Buffer | object): void {
    const payload = Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
    const head = Buffer.alloc(5);
    head.writeUInt32BE(payload.length + 1, 0);
    head[4] = kind.charCodeAt(0);
    this.emitStream(1, Buffer.concat([head, payload]));
  }
}

const request = {
  id: 'c1',
  code: 'print(1)',
  timeout_ms: 1000,
  max_output_bytes: 40000,
  max_file_bytes: 1,
  stateful: false,
};
const endFrame = {
  id: 'c1',
  status: 'ok',
  exit_code: 0,
  output_bytes: 2,
  output_complete: true,
  duration_ms: 1,
  artifacts: [],
};

describe('kernel channel', () => {
  test('resolves ready on hello, runs a cell, collects output', async () => {
    const attach = new FakeAttach();
    const channel = new KernelChannel(attach);
    attach.emitFrame('Y', { python: '3.11.2', pid: 7, preloaded: { pandas: '1.5.3' } });
    assert.equal((await channel.ready).python, '3.11.2');
    const chunks: string[] = [];
    const running = channel.run(request, undefined, (c) => chunks.push(c.toString()));
    const sent = Buffer.concat(attach.written);
    assert.equal(sent.readUInt32BE(0), sent.length - 4);
    assert.equal(String.fromCharCode(sent[4]!), 'R');
    assert.equal(JSON.parse(sent.subarray(5).toString()).code, 'print(1)');
    attach.emitFrame('O', Buffer.from('1\n'));
    attach.emitFrame('E', endFrame);
    const outcome = await running;
    assert.equal(outcome.output.toString(), '1\n');
    assert.deepEqual(chunks, ['1\n']);
    assert.equal(outcome.end.status, 'ok');
  });

  test('frames split across arbitrary chunk boundaries are reassembled', async () => {
    const attach = new FakeAttach();
    const channel = new KernelChannel(attach);
    const sendInPieces = (bytes: Buffer) => {
      for (let i = 0; i < bytes.length; i += 3) attach.emitStream(1, bytes.subarray(i, i + 3));
    };
    sendInPieces(frameBytes('Y', { python: '3.12.0', pid: 1, preloaded: {} }));
    await channel.ready;
    const running = channel.run(request);
    sendInPieces(Buffer.concat([frameBytes('O', Buffer.from('héllo')), frameBytes('E', endFrame)]));
    assert.equal((await running).output.toString(), 'héllo');
  });

  test('output that arrives when no cell runs is dropped', async () => {
    const attach = new FakeAttach();
    const channel = new KernelChannel(attach);
    attach.emitFrame('Y', { python: '3.12.0', pid: 1, preloaded: {} });
    attach.emitFrame('O', Buffer.from('stray'));
    await channel.ready;
    const running = channel.run(request);
    attach.emitFrame('E', endFrame);
    assert.equal((await running).output.toString(), '');
  });

  test('stderr is kept for diagnostics and never mixed into cell output', async () => {
    const attach = new FakeAttach();
    const channel = new KernelChannel(attach);
    attach.emitStream(2, Buffer.from('Traceback: zygote failed\n'));
    attach.emitFrame('Y', { python: '3.12.0', pid: 1, preloaded: {} });
    await channel.ready;
    const running = channel.run(request);
    attach.emitFrame('E', endFrame);
    assert.equal((await running).output.length, 0);
    assert.match(channel.stderr, /zygote failed/);
  });

  test('a kernel that exits mid-cell rejects with KernelLostError', async () => {
    const attach = new FakeAttach();
    const channel = new KernelChannel(attach);
    attach.emitFrame('Y', { python: '3.12.0', pid: 1, preloaded: {} });
    await channel.ready;
    const running = channel.run(request);
    attach.push(null);
    attach.destroy();
    await assert.rejects(running, KernelLostError);
    assert.equal(channel.closed, true);
    await assert.rejects(channel.run(request), KernelLostError);
  });

  test('a malformed frame length ends the channel instead of buffering forever', async () => {
    const attach = new FakeAttach();
    const channel = new KernelChannel(attach);
    const bad = Buffer.alloc(5);
    bad.writeUInt32BE(0xffffffff, 0);
    attach.emitStream(1, bad);
    await assert.rejects(channel.ready, /malformed frame/);
  });

  test('one cell at a time', async () => {
    const attach = new FakeAttach();
    const channel = new KernelChannel(attach);
    attach.emitFrame('Y', { python: '3.12.0', pid: 1, preloaded: {} });
    await channel.ready;
    const first = channel.run(request);
    await assert.rejects(channel.run(request), /already running/);
    attach.emitFrame('E', endFrame);
    await first;
  });

  test('cancel sends a C frame with the cell id', async () => {
    const attach = new FakeAttach();
    const channel = new KernelChannel(attach);
    channel.cancel('c9');
    const sent = Buffer.concat(attach.written);
    assert.equal(String.fromCharCode(sent[4]!), 'C');
    assert.deepEqual(JSON.parse(sent.subarray(5).toString()), { id: 'c9' });
  });
});

function frameBytes(kind: string, body: Buffer | object): Buffer {
  const payload = Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
  const head = Buffer.alloc(5);
  head.writeUInt32BE(payload.length + 1, 0);
  head[4] = kind.charCodeAt(0);
  return Buffer.concat([head, payload]);
}
