import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type Docker from 'dockerode';
import { ConfigurationError } from '../errors/index.ts';
import { statusCodeOf } from '../sandbox/docker/engine.ts';
import {
  debootstrap,
  ensureDebootstrap,
  followProgress,
  importDirectory,
  installPackages,
  run,
} from '../sandbox/image/debian-rootfs.ts';

export type AppRecipe = 'debian' | 'dockerfile';

export interface AppImageOptions {
  /** Default analyst:latest. */
  image?: string;
  /** `debian` (Debian packages and this checkout; the default) or `dockerfile` (Docker Hub and npm). */
  recipe?: AppRecipe;
  /** Rebuild even when the image's recipe hash matches. */
  force?: boolean;
  /** The checkout the image is made of. Default: this one. */
  repo?: string;
  suite?: string;
  mirror?: string;
  /** debootstrap's package cache, shared with the sandbox image build. */
  cacheDir?: string;
  /** Scratch space (a root filesystem, a build context). */
  workDir?: string;
  log?: (line: string) => void;
}

export interface AppImageResult {
  image: string;
  recipe: AppRecipe;
  hash: string;
  built: boolean;
}

export const APP_RECIPE_LABEL = 'dev.analyst.app-recipe-hash';
const RECIPE_VERSION = 1;
/** What the app needs from Debian besides Node: the workspace helper's mkfs.ext4 and mount. */
export const APP_BASE_PACKAGES = ['e2fsprogs', 'mount', 'ca-certificates'];
const REPO = join(import.meta.dirname, '..', '..');

/**
 * Builds Analyst's app image (compose.yaml's `analyst:latest`) unless one with the same
 * recipe hash exists. The `debian` recipe needs only a Debian mirror and this checkout:
 * a bookworm root filesystem (debootstrap) with the base packages and this machine's Node
 * (bookworm's own nodejs is 18; Analyst needs 20 or newer), imported as a base image, then
 * `deploy/app-layer.Dockerfile` adds bin/, src/ and the production node_modules. The
 * `dockerfile` recipe is `deploy/Dockerfile` on Docker Hub's node:20 image.
 */
export async function buildAppImage(docker: Docker, options: AppImageOptions = {}): Promise<AppImageResult> {
  const image = options.image ?? 'analyst:latest';
  const recipe = options.recipe ?? 'debian';
  const repo = options.repo ?? REPO;
  const log = options.log ?? (() => {});
  const suite = options.suite ?? process.env.ANALYST_DEBIAN_SUITE ?? 'bookworm';
  const hash = await appHash(repo, recipe, suite);
  if (!options.force && (await labelOf(docker, image, APP_RECIPE_LABEL)) === hash)
    return { image, recipe, hash, built: false };
  const workDir = options.workDir ?? '/var/tmp/analyst-image';
  await mkdir(workDir, { recursive: true });
  if (recipe === 'dockerfile') {
    log(`docker build ${image} from deploy/Dockerfile (node:20-bookworm-slim, npm ci)`);
    await buildContext(docker, repo, ['package.json', 'package-lock.json', 'bin', 'src', 'deploy'], {
      t: image,
      dockerfile: 'deploy/Dockerfile',
      labels: { [APP_RECIPE_LABEL]: hash },
    });
    return { image, recipe, hash, built: true };
  }
  const base = await buildBase(docker, { ...options, suite, workDir, log });
  const context = await mkdtemp(join(workDir, 'app-context-'));
  try {
    log('copying bin/, src/, web/dist (when built) and the production node_modules');
    const app = join(context, 'app');
    await mkdir(app);
    for (const name of ['package.json', 'package-lock.json'])
      await copyFile(join(repo, name), join(app, name));
    for (const name of ['bin', 'src']) await cp(join(repo, name), join(app, name), { recursive: true });
    // The web UI when it is built (scripts/setup.sh); without it the server serves the API only.
    if (existsSync(join(repo, 'web/dist/index.html')))
      await cp(join(repo, 'web/dist'), join(app, 'web/dist'), { recursive: true });
    await cp(join(repo, 'node_modules'), join(app, 'node_modules'), {
      recursive: true,
      verbatimSymlinks: true,
    });
    // The development tools stay behind; prune works from the lockfile, offline.
    await run('npm', ['prune', '--omit=dev', '--offline', '--no-audit', '--no-fund', '--prefix', app], {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
    });
    await copyFile(join(repo, 'deploy', 'app-layer.Dockerfile'), join(context, 'Dockerfile'));
    log(`docker build ${image} on ${base}`);
    await buildContext(docker, context, ['.'], {
      t: image,
      buildargs: { BASE: base },
      labels: { [APP_RECIPE_LABEL]: hash },
    });
  } finally {
    await rm(context, { recursive: true, force: true });
  }
  return { image, recipe, hash, built: true };
}

/** The base image (Debian + Node), built once per recipe: `analyst-app-base:<hash>`. */
async function buildBase(
  docker: Docker,
  options: AppImageOptions & { suite: string; workDir: string; log: (line: string) => void },
): Promise<string> {
  const node = process.execPath;
  const version = process.versions.node;
  if (Number(version.split('.')[0]) < 20)
    throw new ConfigurationError(`this machine's Node is ${version}; the app image needs Node 20 or newer`);
  const baseHash = createHash('sha256')
    .update(JSON.stringify([RECIPE_VERSION, options.suite, APP_BASE_PACKAGES, version, process.arch]))
    .digest('hex')
    .slice(0, 16);
  const base = `analyst-app-base:${baseHash}`;
  if (!options.force && (await labelOf(docker, base, APP_RECIPE_LABEL)) === baseHash) return base;
  if (process.getuid?.() !== 0) {
    throw new ConfigurationError(
      'building the app image from Debian packages needs root (debootstrap): run `sudo npx analyst deploy build`, or use --recipe dockerfile where Docker Hub is reachable',
    );
  }
  await ensureDebootstrap(options.log);
  const cacheDir = options.cacheDir ?? '/var/cache/analyst/debootstrap';
  await mkdir(cacheDir, { recursive: true });
  const root = await mkdtemp(join(options.workDir, 'app-rootfs-'));
  try {
    const rootfs = {
      suite: options.suite,
      mirror: options.mirror ?? process.env.ANALYST_DEBIAN_MIRROR ?? 'http://deb.debian.org/debian',
      cacheDir,
      log: options.log,
    };
    await debootstrap(root, rootfs);
    await installPackages(root, APP_BASE_PACKAGES, rootfs);
    options.log(`adding Node ${version} from ${node}`);
    await copyFile(node, join(root, 'usr/local/bin/node'));
    await run('chmod', ['0755', join(root, 'usr/local/bin/node')]);
    // Its libraries (libc, libstdc++, libgcc) must be the root filesystem's own.
    const probe = spawnSync(
      'chroot',
      [root, '/usr/local/bin/node', '-e', 'process.stdout.write(process.version)'],
      {
        encoding: 'utf8',
      },
    );
    if (probe.status !== 0 || probe.stdout !== `v${version}`)
      throw new ConfigurationError(
        `Node does not run in the ${options.suite} root filesystem: ${probe.stderr}`,
      );
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
    options.log(`importing the root filesystem as ${base}`);
    await importDirectory(docker, root, base, [
      `LABEL ${APP_RECIPE_LABEL}=${baseHash}`,
      'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8',
      'CMD ["node"]',
    ]);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return base;
}

/** `docker build` of `paths` under `dir` as the context. */
async function buildContext(docker: Docker, dir: string, paths: string[], options: object): Promise<void> {
  const tar = spawn('tar', ['-C', dir, '-c', ...paths], { stdio: ['ignore', 'pipe', 'pipe'] });
  let tarError = '';
  tar.stderr.on('data', (chunk: Buffer) => {
    tarError += chunk.toString();
  });
  const stream = (await docker.buildImage(tar.stdout, options as never)) as unknown as NodeJS.ReadableStream;
  await followProgress(docker, stream).catch((error: Error) => {
    throw new Error(`docker build failed: ${error.message}${tarError ? ` (tar: ${tarError})` : ''}`);
  });
}

/**
 * The recipe hash of the app image: everything that shapes it — the recipe files, the
 * lockfile, every file of bin/, src/ and a built web/dist, the suite, this machine's Node — so an unchanged
 * checkout is not built twice.
 */
export async function appHash(repo: string, recipe: AppRecipe, suite: string): Promise<string> {
  const hash = createHash('sha256').update(
    JSON.stringify([RECIPE_VERSION, recipe, suite, process.versions.node]),
  );
  const files = [
    'package-lock.json',
    recipe === 'debian' ? 'deploy/app-layer.Dockerfile' : 'deploy/Dockerfile',
    ...(await filesUnder(repo, 'bin')),
    ...(await filesUnder(repo, 'src')),
    ...(recipe === 'debian' && existsSync(join(repo, 'web/dist/index.html'))
      ? await filesUnder(repo, 'web/dist')
      : []),
  ];
  for (const file of files) {
    hash.update(`\0${file}\0`);
    hash.update(await readFile(join(repo, file)));
  }
  return hash.digest('hex').slice(0, 24);
}

async function filesUnder(repo: string, dir: string): Promise<string[]> {
  const entries = await readdir(join(repo, dir), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(repo, join(entry.parentPath, entry.name)))
    .sort();
}

async function labelOf(docker: Docker, image: string, label: string): Promise<string | undefined> {
  try {
    return (await docker.getImage(image).inspect()).Config?.Labels?.[label] ?? undefined;
  } catch (error) {
    if (statusCodeOf(error) === 404) return undefined;
    throw error;
  }
}
