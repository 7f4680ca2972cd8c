import assert from 'node:assert/strict';
import { probeHealth, quantile } from './health-prober.ts';

/** `/health` answer times of one server idle and then while an attack ran, in ms. */
export interface HealthFigures {
  attack: string;
  idleP95: number;
  attackP95: number;
  max: number;
  /** Answers timed during the attack. */
  probes: number;
  /**
   * Issue 29's bound, relative because the machine is shared: max(100 ms, 3 × the idle p95
   * of the same server measured just before).
   */
  bound: number;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/**
 * Times `/health` with no work for `idleMs`, then while `attack` runs (from its start to its
 * end), and prints the figures as one JSON line with what `summary` says of the attack's
 * result. The caller checks that the attack ran, then `assertHealthWithinBound`.
 */
export async function healthDuring<T>(
  baseUrl: string,
  attack: string,
  run: () => Promise<T>,
  options: { idleMs?: number; summary?: (result: T) => Record<string, unknown> } = {},
): Promise<{ result: T; health: HealthFigures }> {
  const idleProbe = await probeHealth(baseUrl);
  await new Promise((resolve) => setTimeout(resolve, options.idleMs ?? 1500));
  const idle = await idleProbe.stop();
  const probe = await probeHealth(baseUrl);
  let result: T;
  let attacked: number[];
  try {
    result = await run();
  } finally {
    attacked = await probe.stop();
  }
  const health: HealthFigures = {
    attack,
    idleP95: round(quantile(idle, 0.95)),
    attackP95: round(quantile(attacked, 0.95)),
    max: round(Math.max(...attacked)),
    probes: attacked.length,
    bound: round(Math.max(100, 3 * quantile(idle, 0.95))),
  };
  console.log(JSON.stringify({ ...health, ...options.summary?.(result) }));
  return { result, health };
}

/** Asserts the attack's p95 is within the bound (issue 29: `/health` answers in under 100 ms). */
export function assertHealthWithinBound(health: HealthFigures): void {
  assert.ok(
    health.attackP95 <= health.bound,
    `${health.attack}: /health p95 ${health.attackP95} ms (max ${health.max} ms, ${health.probes} answers), ` +
      `bound ${health.bound} ms (idle p95 ${health.idleP95} ms)`,
  );
}
