import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigurationError } from '../errors/index.ts';

export const KERNEL_NAME = 'analyst';
export const DISPLAY_NAME = 'Analyst (sandboxed Python)';

/** The kernel's Python files, copied into the kernelspec so it does not depend on this checkout's layout. */
const KERNEL_FILES = ['analyst_kernel.py', 'analyst_client.py'];
const KERNEL_SOURCE = fileURLToPath(new URL('./kernel/', import.meta.url));
/** The CLI a kernel of its own starts its private server with. */
const CLI = resolve(fileURLToPath(new URL('../../bin/analyst.js', import.meta.url)));

export interface KernelTarget {
  /** A running Analyst server; without one the kernel starts a server of its own. */
  url?: string;
  apiKey?: string;
  /** The server's thread cells run on; without one a thread is made at the first cell. */
  thread?: string;
  /** Keep variables between cells (Jupyter's way). Default true. */
  stateful?: boolean;
}

/** kernel.json for the Analyst kernel (`{resource_dir}` is the kernelspec's own folder). */
export function kernelJson(python: string, target: KernelTarget, node = process.execPath): object {
  const env: Record<string, string> = {
    ANALYST_KERNEL_STATEFUL: target.stateful === false ? '0' : '1',
    ANALYST_KERNEL_NODE: node,
    ANALYST_KERNEL_CLI: CLI,
    // ipykernel's debugger otherwise warns about frozen modules on every start.
    PYDEVD_DISABLE_FILE_VALIDATION: '1',
  };
  if (target.url) env.ANALYST_KERNEL_URL = target.url;
  if (target.apiKey) env.ANALYST_KERNEL_API_KEY = target.apiKey;
  if (target.thread) env.ANALYST_KERNEL_THREAD = target.thread;
  return {
    argv: [python, '{resource_dir}/analyst_kernel.py', '-f', '{connection_file}'],
    display_name: DISPLAY_NAME,
    language: 'python',
    interrupt_mode: 'signal',
    env,
    metadata: { analyst: { url: target.url ?? null, thread: target.thread ?? null } },
  };
}

/**
 * A Python that has ipykernel (Debian: python3-ipykernel). The Python first on PATH may be
 * another build without it, so Debian's own is tried first.
 */
export function findKernelPython(preferred?: string): string {
  const candidates = preferred ? [preferred] : ['/usr/bin/python3', 'python3'];
  for (const python of candidates) {
    const probe = spawnSync(python, ['-c', 'import ipykernel, jupyter_client'], { stdio: 'ignore' });
    if (probe.status === 0) return python;
  }
  throw new ConfigurationError(
    `${preferred ?? 'no Python here'} cannot import ipykernel: install it (Debian: apt-get install python3-ipykernel python3-jupyter-client) or name a Python that has it with --python`,
  );
}

/** Writes the kernelspec into `<dataDir>/kernels/analyst/`; returns that folder. */
export async function installKernelspec(
  dataDir: string,
  python: string,
  target: KernelTarget,
): Promise<string> {
  const dir = join(dataDir, 'kernels', KERNEL_NAME);
  await mkdir(dir, { recursive: true });
  for (const file of KERNEL_FILES) await copyFile(join(KERNEL_SOURCE, file), join(dir, file));
  // It may hold an API key: readable by its owner only.
  await writeFile(join(dir, 'kernel.json'), `${JSON.stringify(kernelJson(python, target), null, 2)}\n`, {
    mode: 0o600,
  });
  return dir;
}
