import { createDockerSandbox } from '../../../sandbox/docker/manager.ts';
import { formatBytes } from '../../../sandbox/exec-result.ts';
import { currentRecipeHash } from '../../../sandbox/image/build.ts';
import { DEFAULT_LIMITS } from '../../../sandbox/limits.ts';
import { parseFlags } from '../../args.ts';
import { EXIT } from '../../exit-codes.ts';
import type { CommandIO } from '../../io.ts';
import { engineFromEnvironment } from './shared.ts';

export const usage = 'analyst sandbox doctor [--json]';
export const summary = 'show the engine, image and limits, and run a live cell';

const PROBE = `import sys, platform, os
mods = []
for name in ("pandas", "numpy", "scipy", "matplotlib", "seaborn", "sklearn", "statsmodels", "openpyxl", "pyarrow"):
    try:
        __import__(name)
        mods.append(name)
    except Exception:
        pass
cjk = "no"
try:
    from matplotlib import font_manager
    if any("CJK" in f.name for f in font_manager.fontManager.ttflist):
        cjk = "yes"
except Exception:
    pass
print("python", platform.python_version(), "uid", os.getuid(), "cwd", os.getcwd())
print("libraries", " ".join(mods) or "(standard library only)")
print("cjk font", cjk)
try:
    import duckdb
    duckdb_line = "%s (%s)" % (duckdb.__version__, duckdb.sql("select current_setting('threads') || ' thread, ' || current_setting('memory_limit')").fetchone()[0])
except Exception as error:
    duckdb_line = "unavailable: %s: %s" % (type(error).__name__, error)
print("duckdb", duckdb_line)
`;

export async function run(argv: string[], io: CommandIO): Promise<number> {
  const { values } = parseFlags(argv, { json: { type: 'boolean' } }, usage);
  const { endpoint, image, docker } = engineFromEnvironment(io);
  const recipe = await currentRecipeHash(docker, image).catch(() => undefined);
  const sandbox = await createDockerSandbox({ endpoint, docker, image, reapIntervalMs: 0 });
  const started = performance.now();
  const cell = await sandbox.runEphemeral({ code: PROBE, timeoutMs: 30_000 }).finally(() => sandbox.close());
  const elapsedMs = Math.round(performance.now() - started);
  const report = {
    endpoint: endpoint.socketPath,
    endpoint_source: endpoint.source,
    tried: endpoint.tried,
    image,
    image_recipe: recipe ?? null,
    limits: DEFAULT_LIMITS,
    live_cell: {
      status: cell.status,
      output: cell.output,
      message: cell.message ?? null,
      elapsed_ms: elapsedMs,
    },
  };
  if (values.json) {
    io.stdout(`${JSON.stringify(report)}\n`);
  } else {
    const limits = DEFAULT_LIMITS;
    io.stdout(
      [
        `engine     ${endpoint.socketPath} (from ${endpoint.source})`,
        `image      ${image}${recipe ? ` (recipe ${recipe})` : ''}`,
        `limits     ${limits.cpus} CPU, ${formatBytes(limits.memoryBytes)} memory (no swap), ${limits.maxProcesses} processes, ` +
          `timeout ≤ ${limits.defaultTimeoutMs / 1000} s (+${limits.hostGraceMs / 1000} s host grace), ` +
          `output ${limits.maxOutputBytes} bytes, no network, read-only root, uid 65534`,
        `live cell  ${cell.status} in ${elapsedMs} ms (fresh container)`,
        ...cell.output
          .trimEnd()
          .split('\n')
          .map((line) => `           ${line}`),
        ...(cell.message ? [`           ${cell.message}`] : []),
        '',
      ].join('\n'),
    );
  }
  return cell.status === 'ok' ? EXIT.ok : cell.status === 'unavailable' ? EXIT.unavailable : EXIT.failure;
}
