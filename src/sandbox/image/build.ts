import type Docker from 'dockerode';
import { InvalidInputError } from '../../errors/index.ts';
import { statusCodeOf } from '../docker/engine.ts';
import { buildDebianImage } from './debian-rootfs.ts';
import { buildDockerfileImage } from './dockerfile-build.ts';
import { RECIPE_LABEL, RECIPE_PROFILES, type RecipeKind, type RecipeProfile, recipeHash } from './recipe.ts';

export interface BuildImageOptions {
  image: string;
  recipe?: RecipeKind;
  /** Package set: `default`, or `full` with the heavy libraries (torch, …). Default `default`. */
  profile?: RecipeProfile;
  /** Rebuild even when the image's recipe hash matches. */
  force?: boolean;
  /** Debian release for the debian recipe. Default: ANALYST_DEBIAN_SUITE or bookworm. */
  suite?: string;
  /** Debian mirror. Default: ANALYST_DEBIAN_MIRROR or http://deb.debian.org/debian. */
  mirror?: string;
  cacheDir?: string;
  workDir?: string;
  log?: (line: string) => void;
}

export interface BuildImageResult {
  image: string;
  recipe: RecipeKind;
  profile: RecipeProfile;
  hash: string;
  /** False when an image with the same recipe hash already existed. */
  built: boolean;
}

/** Builds the sandbox image unless one with the same recipe hash exists (or `force`). */
export async function buildSandboxImage(
  docker: Docker,
  options: BuildImageOptions,
): Promise<BuildImageResult> {
  const recipe = options.recipe ?? 'debian';
  if (recipe !== 'debian' && recipe !== 'dockerfile') {
    throw new InvalidInputError(`unknown recipe "${recipe}": use debian or dockerfile`, { param: 'recipe' });
  }
  const profile = options.profile ?? 'default';
  if (!RECIPE_PROFILES.includes(profile)) {
    throw new InvalidInputError(`unknown profile "${profile}": use ${RECIPE_PROFILES.join(' or ')}`, {
      param: 'profile',
    });
  }
  const suite = options.suite ?? process.env.ANALYST_DEBIAN_SUITE ?? 'bookworm';
  const hash = recipeHash(recipe, suite, profile);
  const log = options.log ?? (() => {});
  if (!options.force && (await currentRecipeHash(docker, options.image)) === hash) {
    return { image: options.image, recipe, profile, hash, built: false };
  }
  if (recipe === 'debian') {
    await buildDebianImage(docker, {
      image: options.image,
      hash,
      profile,
      suite,
      mirror: options.mirror ?? process.env.ANALYST_DEBIAN_MIRROR ?? 'http://deb.debian.org/debian',
      cacheDir: options.cacheDir ?? '/var/cache/analyst/debootstrap',
      workDir: options.workDir ?? '/var/tmp/analyst-image',
      log,
    });
  } else {
    await buildDockerfileImage(docker, { image: options.image, hash, profile, log });
  }
  log(`built ${options.image} (recipe ${hash}, profile ${profile})`);
  return { image: options.image, recipe, profile, hash, built: true };
}

/** The recipe hash label of an existing image, or undefined when there is none. */
export async function currentRecipeHash(docker: Docker, image: string): Promise<string | undefined> {
  try {
    const info = await docker.getImage(image).inspect();
    return info.Config?.Labels?.[RECIPE_LABEL] ?? undefined;
  } catch (error) {
    if (statusCodeOf(error) === 404) return undefined;
    throw error;
  }
}
