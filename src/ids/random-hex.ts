import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let used = POOL_BYTES;

/**
 * `bytes` random bytes as hex, from the system's CSPRNG through a pool: one getrandom(2)
 * call per 4 KiB instead of one per id (a new chat makes eight ids, and each call counts:
 * docs/performance.md#random-ids). What `crypto.randomUUID` does for UUIDs.
 */
export function randomHex(bytes: number): string {
  if (bytes > POOL_BYTES) throw new RangeError(`randomHex: at most ${POOL_BYTES} bytes`);
  if (used + bytes > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const hex = pool.toString('hex', used, used + bytes);
  used += bytes;
  return hex;
}
