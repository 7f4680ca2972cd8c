import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const TEST = fileURLToPath(new URL('../test/server/health-every-attack.test.ts', import.meta.url));

/**
 * `npm run bench -- health-attacks`: `/health` while each of issue 29's attacks runs, one
 * server, idle first (the yardstick, measured in the same run just before each attack). Runs
 * the attacks of `test/server/health-every-attack.test.ts` and prints each one's figures with
 * its ratio to the idle p95, then how many stayed under 100 ms at p95 and throughout.
 */
export async function runHealthAttacksBench(): Promise<void> {
  const lines: string[] = [];
  const child = spawn(process.execPath, ['--import', 'tsx', TEST], { stdio: ['ignore', 'pipe', 'inherit'] });
  let rest = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text: string) => {
    const parts = (rest + text).split('\n');
    rest = parts.pop() ?? '';
    lines.push(...parts);
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const figures = lines
    .map((line) => line.replace(/^#\s*/, '').trim())
    .filter((line) => line.startsWith('{"attack"'))
    .map((line) => JSON.parse(line) as { attack: string; idleP95: number; attackP95: number; max: number });
  for (const f of figures) {
    console.log(
      JSON.stringify({
        name: 'health_during_attack',
        attack: f.attack,
        idle_p95_ms: f.idleP95,
        p95_ms: f.attackP95,
        max_ms: f.max,
        p95_ratio_to_idle: Math.round((f.attackP95 / Math.max(f.idleP95, 0.1)) * 10) / 10,
      }),
    );
  }
  console.log(
    JSON.stringify({
      name: 'health_during_attacks',
      attacks: figures.length,
      p95_under_100_ms: figures.filter((f) => f.attackP95 < 100).length,
      max_under_100_ms: figures.filter((f) => f.max < 100).length,
      test_exit_code: code,
      failed: lines.flatMap((line) => /^\s*not ok \d+ - (.*)$/.exec(line)?.slice(1) ?? []),
    }),
  );
}
