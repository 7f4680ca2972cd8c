import { readdirSync, readFileSync } from 'node:fs';
import { round } from './stats.ts';

/**
 * Where a section's CPU went, from its start until the returned function is called (Linux
 * /proc; NaN elsewhere): this process (every thread), its main thread's time on a core and
 * waiting for one, `peerPid`'s CPU, and the share of the machine's time anything ran.
 */
export function cpuAccounting(peerPid: number | undefined): () => Record<string, number | string> {
  const cpuBefore = process.cpuUsage();
  const schedBefore = mainThreadSchedule();
  const peerBefore = processCpuMs(peerPid);
  const machineBefore = machineTicks();
  const processesBefore = processTicks();
  const threadsBefore = processTicks(`/proc/${process.pid}/task`);
  return () => {
    const cpu = process.cpuUsage(cpuBefore);
    const sched = mainThreadSchedule();
    const machine = machineTicks().map((ticks, i) => ticks - (machineBefore[i] ?? 0));
    return {
      // Split sections: the server and its report workers alone.
      process_cpu_ms: round((cpu.user + cpu.system) / 1000, 0),
      // The event loop's thread: time it ran, and time it was ready but had no core.
      main_thread_on_cpu_ms: round(sched.onCpuMs - schedBefore.onCpuMs, 0),
      main_thread_waiting_for_cpu_ms: round(sched.waitingMs - schedBefore.waitingMs, 0),
      relay_peer_cpu_ms: round(processCpuMs(peerPid) - peerBefore, 0),
      // Not idle or iowait.
      machine_busy_pct: round(
        (100 * (sum(machine) - (machine[3] ?? 0) - (machine[4] ?? 0))) / sum(machine),
        0,
      ),
      busiest_processes: busiest(processesBefore, processTicks()),
      // This process's threads: the event loop, V8's GC helpers, libuv's pool, workers.
      busiest_threads: busiest(threadsBefore, processTicks(`/proc/${process.pid}/task`)),
    };
  };
}

/** The five processes (kernel threads too) that ran most in between, as `name [nice N](pid) ms`. */
function busiest(before: Map<number, { name: string; ticks: number }>, after: typeof before): string {
  return [...after]
    .map(([pid, { name, ticks }]) => ({
      label: `${name}(${pid})`,
      ms: (ticks - (before.get(pid)?.ticks ?? 0)) * 10,
    }))
    .filter((p) => p.ms > 0)
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 5)
    .map((p) => `${p.label} ${p.ms}`)
    .join(', ');
}

/** Every process's (or, under /proc/PID/task, thread's) CPU time so far (user + system), in USER_HZ ticks (100 a second). */
function processTicks(dir = '/proc'): Map<number, { name: string; ticks: number }> {
  const found = new Map<number, { name: string; ticks: number }>();
  let pids: string[] = [];
  try {
    pids = readdirSync(dir).filter((name) => /^\d+$/.test(name));
  } catch {
    return found;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`${dir}/${pid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const nice = Number(fields[16]);
      found.set(Number(pid), {
        name: nice ? `${name} nice ${nice}` : name,
        ticks: Number(fields[11]) + Number(fields[12]),
      });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** The cumulative tick counts of /proc/stat's `cpu` line (user, nice, system, idle, iowait, …). */
function machineTicks(): number[] {
  try {
    return readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number);
  } catch {
    return [];
  }
}

/** A process's CPU time so far (user + system), in ms; NaN when unknown. */
function processCpuMs(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * (1000 / 100); // USER_HZ is 100 on Linux
  } catch {
    return Number.NaN;
  }
}

/** The main thread's run time and run-queue wait so far (Linux schedstat), in ms; NaN when unknown. */
function mainThreadSchedule(): { onCpuMs: number; waitingMs: number } {
  try {
    const [onCpu, waiting] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8')
      .split(' ')
      .map(Number);
    return { onCpuMs: onCpu! / 1e6, waitingMs: waiting! / 1e6 };
  } catch {
    return { onCpuMs: Number.NaN, waitingMs: Number.NaN };
  }
}
