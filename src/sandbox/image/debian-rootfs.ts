import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { ConfigurationError } from '../../errors/index.ts';
import { installDuckdb } from './duckdb-files.ts';
import {
  debianPackages,
  FONT_CACHE_DIR,
  IMAGE_ENV,
  MATPLOTLIBRC,
  RECIPE_LABEL,
  type RecipeProfile,
} from './recipe.ts';

export interface DebianBuildOptions {
  image: string;
  hash: string;
  /** Which package list to install. Default `default`. */
  profile?: RecipeProfile;
  suite: string;
  mirror: string;
  /** Package cache kept between builds, so a rebuild downloads nothing. */
  cacheDir: string;
  /** Scratch space for the root filesystem (about 2 GB). */
  workDir: string;
  log: (line: string) => void;
}

/**
 * Builds the image from Debian packages: debootstrap a minimal root filesystem with the
 * data-science packages, configure matplotlib, prebuild its font cache, strip what a
 * sandbox never reads, and `docker import` the result. Needs root (debootstrap does).
 */
export async function buildDebianImage(docker: Docker, options: DebianBuildOptions): Promise<void> {
  if (process.getuid?.() !== 0) {
    throw new ConfigurationError(
      'building the Debian sandbox image needs root (debootstrap creates device nodes and chroots): ' +
        'run `sudo npx analyst sandbox build`, or use --recipe dockerfile where Docker Hub and PyPI are reachable',
    );
  }
  await ensureDebootstrap(options.log);
  await mkdir(options.cacheDir, { recursive: true });
  await mkdir(options.workDir, { recursive: true });
  const root = await mkdtemp(join(options.workDir, 'rootfs-'));
  try {
    await debootstrap(root, options);
    await installPackages(root, debianPackages(options.profile), options);
    options.log('installing DuckDB (library checked against its pinned sha256) and the duckdb module');
    await installDuckdb(root);
    options.log('configuring matplotlib and building its font cache');
    await writeFile(join(root, 'etc/matplotlibrc'), MATPLOTLIBRC);
    await mkdir(join(root, 'workspace'), { recursive: true });
    await mkdir(join(root, FONT_CACHE_DIR.slice(1)), { recursive: true });
    await run('chroot', [
      root,
      '/usr/bin/env',
      '-i',
      `MPLCONFIGDIR=${FONT_CACHE_DIR}`,
      'LANG=C.UTF-8',
      '/usr/bin/python3',
      '-c',
      'import matplotlib.font_manager, duckdb; duckdb.sql("select 42").fetchall()',
    ]);
    await run('chmod', ['-R', 'a+rX', join(root, FONT_CACHE_DIR.slice(1))]);
    for (const path of [
      'var/cache/apt/archives',
      'var/lib/apt/lists',
      'usr/share/doc',
      'usr/share/man',
      'usr/share/info',
    ]) {
      await rm(join(root, path), { recursive: true, force: true });
      await mkdir(join(root, path), { recursive: true });
    }
    options.log(`importing the root filesystem as ${options.image}`);
    await importRootfs(docker, root, options);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** Where debootstrap and apt work, and what they say. */
export type RootfsOptions = Pick<DebianBuildOptions, 'suite' | 'mirror' | 'cacheDir' | 'log'>;

/**
 * Lays down a minimal Debian system (minbase) in `root`. Packages are installed with apt
 * afterwards (`installPackages`), because debootstrap's own resolver does not follow
 * virtual packages (e.g. boost's icu72).
 */
export async function debootstrap(root: string, options: RootfsOptions): Promise<void> {
  options.log(`debootstrap ${options.suite} into ${root} (a few minutes the first time)`);
  await run('debootstrap', [
    '--variant=minbase',
    `--cache-dir=${options.cacheDir}`,
    options.suite,
    root,
    options.mirror,
  ]).catch(async (error: Error) => {
    const log = await readFile(join(root, 'debootstrap/debootstrap.log'), 'utf8').catch(() => '');
    error.message += log ? `\ndebootstrap.log (end):\n${log.slice(-3000)}` : '';
    throw error;
  });
}

/** apt-get inside the new root, reusing (and refilling) the package cache between builds. */
export async function installPackages(
  root: string,
  packages: string[],
  options: RootfsOptions,
): Promise<void> {
  const archives = join(root, 'var/cache/apt/archives');
  options.log(`installing ${packages.length} packages with apt`);
  await run('sh', ['-c', 'cp -n "$0"/*.deb "$1"/ 2>/dev/null || true', options.cacheDir, archives]);
  await run('mount', ['-t', 'proc', 'proc', join(root, 'proc')]);
  try {
    const apt = (args: string[]) =>
      run('chroot', [root, '/usr/bin/env', '-i', ...envPairs(BUILD_ENV), 'apt-get', ...args]);
    await apt(['update', '-qq']);
    await apt(['install', '-y', '-qq', '--no-install-recommends', ...packages]);
  } finally {
    await run('umount', ['-l', join(root, 'proc')]).catch(() => {});
  }
  await run('sh', ['-c', 'cp -n "$0"/*.deb "$1"/ 2>/dev/null || true', archives, options.cacheDir]);
}

function envPairs(env: Record<string, string>): string[] {
  return Object.entries(env).map(([key, value]) => `${key}=${value}`);
}

export async function ensureDebootstrap(log: (line: string) => void): Promise<void> {
  if (existsSync('/usr/sbin/debootstrap')) return;
  if (!existsSync('/usr/bin/apt-get')) {
    throw new ConfigurationError(
      'debootstrap is not installed and this is not a Debian system: install debootstrap',
    );
  }
  log('installing debootstrap');
  await run('apt-get', ['install', '-y', '-qq', 'debootstrap'], { DEBIAN_FRONTEND: 'noninteractive' });
}

async function importRootfs(docker: Docker, root: string, options: DebianBuildOptions): Promise<void> {
  const changes = [`LABEL ${RECIPE_LABEL}=${options.hash}`, `ENV ${IMAGE_ENV.join(' ')}`, 'CMD ["python3"]'];
  await importDirectory(docker, root, options.image, changes);
}

/** `docker import` of a root filesystem directory, with Dockerfile-like `changes` (LABEL, ENV, CMD). */
export async function importDirectory(
  docker: Docker,
  root: string,
  image: string,
  changes: string[],
): Promise<void> {
  const [repo, tag = 'latest'] = splitImageName(image);
  const tar = spawn('tar', ['--numeric-owner', '-C', root, '-c', '.'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let tarError = '';
  tar.stderr.on('data', (chunk: Buffer) => {
    tarError += chunk.toString();
  });
  const tarDone = new Promise<void>((resolve, reject) =>
    tar.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`tar failed (${code}): ${tarError}`)),
    ),
  );
  const response = (await docker.importImage(tar.stdout, {
    repo,
    tag,
    changes,
  } as never)) as unknown as NodeJS.ReadableStream;
  await followProgress(docker, response);
  await tarDone;
}

/** Splits `name:tag` (a registry port like host:5000/name stays in the name). */
export function splitImageName(image: string): [string, string | undefined] {
  const slash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  return colon > slash ? [image.slice(0, colon), image.slice(colon + 1)] : [image, undefined];
}

export function followProgress(docker: Docker, stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve, reject) => {
    docker.modem.followProgress(stream, (error: Error | null, output: Array<{ error?: string }>) => {
      const failed = error ?? output.find((event) => event.error);
      if (failed) reject(failed instanceof Error ? failed : new Error(failed.error));
      else resolve();
    });
  });
}

/** A clean environment: the host's (npm, pyenv, PYTHON*) must not leak into package scripts. */
const BUILD_ENV = {
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  HOME: '/root',
  LANG: 'C.UTF-8',
  DEBIAN_FRONTEND: 'noninteractive',
};

/** Runs a build step (no shell) in the clean build environment; the error carries its output's end. */
export function run(command: string, args: string[], env: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...BUILD_ENV, ...env } });
    let tail = '';
    const keep = (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}:\n${tail.trim()}`)),
    );
  });
}
