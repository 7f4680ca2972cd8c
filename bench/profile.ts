import { mkdir, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

/**
 * Runs `work`; with ANALYST_BENCH_PROFILE_DIR set, records this process's main thread on the
 * CPU meanwhile (V8's sampling profiler, 250 µs) into `<dir>/<name>.cpuprofile`, which
 * Chrome's DevTools opens and `node --import tsx bench/profile-summary.ts FILE` summarises.
 * Only the section itself is recorded, not the bench's set-up and warm-up.
 */
export async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  const dir = process.env.ANALYST_BENCH_PROFILE_DIR;
  if (!dir) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 250 });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
  }
}
