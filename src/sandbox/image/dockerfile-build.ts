import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { followProgress } from './debian-rootfs.ts';
import { dockerfileText, MATPLOTLIBRC, RECIPE_LABEL, type RecipeProfile } from './recipe.ts';

/** Builds the image from python:3.12-slim with pip; needs Docker Hub and PyPI. */
export async function buildDockerfileImage(
  docker: Docker,
  options: { image: string; hash: string; profile?: RecipeProfile; log: (line: string) => void },
): Promise<void> {
  const context = await mkdtemp(join(tmpdir(), 'analyst-image-'));
  try {
    await writeFile(join(context, 'Dockerfile'), dockerfileText(options.profile));
    await writeFile(join(context, 'matplotlibrc'), MATPLOTLIBRC);
    options.log(`docker build ${options.image} from python:3.12-slim (pip)`);
    const tar = spawn('tar', ['-C', context, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const stream = (await docker.buildImage(tar.stdout, {
      t: options.image,
      labels: { [RECIPE_LABEL]: options.hash },
    } as never)) as unknown as NodeJS.ReadableStream;
    await followProgress(docker, stream);
  } finally {
    await rm(context, { recursive: true, force: true });
  }
}
