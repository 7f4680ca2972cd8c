import { TEST_DATABASE_URL } from '../test/helpers/postgres.ts';
import { soak } from '../test/scale/soak.ts';
import { round, summarise } from './stats.ts';

/**
 * `npm run bench -- soak [seconds]`: the soak of issue 14 §4 for a few minutes (default 180 s):
 * short chats from four keys, two clients each, with random hang-ups, uploads and cells;
 * it fails (exit 1) if anything acknowledged was lost or a container or socket directory is
 * left. On PostgreSQL too when ANALYST_TEST_DATABASE_URL names a server (scripts/test-postgres.sh).
 * Prints one JSON line per store: counts and chat latency (median, p95).
 */
export async function runSoakBench(): Promise<void> {
  const seconds = Number(process.argv[3] ?? 180);
  const stores = TEST_DATABASE_URL ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);
  for (const store of stores) {
    const started = Date.now();
    const result = await soak({ durationMs: seconds * 1000, clientsPerKey: 2, store, seed: Date.now() });
    const { chatMs, ...counts } = result;
    // soak() throws on anything lost or left behind: a line printed means there was none.
    process.stdout.write(
      `${JSON.stringify({
        ...summarise(`soak_chat_${store}`, chatMs),
        store,
        seconds: round((Date.now() - started) / 1000),
        ...counts,
        lost: 0,
        left_behind: 0,
      })}\n`,
    );
  }
}
