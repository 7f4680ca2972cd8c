import { InvalidInputError } from '../../../errors/index.ts';
import { buildSandboxImage } from '../../../sandbox/image/build.ts';
import { RECIPE_PROFILES, type RecipeKind, type RecipeProfile } from '../../../sandbox/image/recipe.ts';
import { parseFlags } from '../../args.ts';
import type { CommandIO } from '../../io.ts';
import { engineFromEnvironment, requireEngine } from './shared.ts';

export const usage =
  'analyst sandbox build [--recipe debian|dockerfile] [--profile default|full] [--force] [--image NAME]';
export const summary =
  'build the data-science sandbox image (skipped when its recipe is unchanged); --profile full adds torch and other heavy libraries, tagged analyst-sandbox:full';

/** Where `--profile full` goes unless --image says otherwise. */
export const FULL_IMAGE = 'analyst-sandbox:full';

export async function run(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      recipe: { type: 'string' },
      profile: { type: 'string' },
      force: { type: 'boolean' },
      image: { type: 'string' },
    },
    usage,
  );
  if (positionals.length > 0)
    throw new InvalidInputError(`unexpected argument "${positionals[0]}"\nusage: ${usage}`);
  const recipe = (values.recipe ?? 'debian') as RecipeKind;
  if (recipe !== 'debian' && recipe !== 'dockerfile') {
    throw new InvalidInputError(`--recipe must be debian or dockerfile (got "${values.recipe}")`);
  }
  const profile = (values.profile ?? 'default') as RecipeProfile;
  if (!RECIPE_PROFILES.includes(profile)) {
    throw new InvalidInputError(
      `--profile must be ${RECIPE_PROFILES.join(' or ')} (got "${values.profile}")`,
    );
  }
  const engine = engineFromEnvironment(io);
  await requireEngine(engine.docker, engine.endpoint);
  const result = await buildSandboxImage(engine.docker, {
    // The full profile has its own tag, so the default image every sandbox uses stays as it is.
    image: values.image ?? (profile === 'full' ? FULL_IMAGE : engine.image),
    recipe,
    profile,
    force: values.force,
    log: (line) => io.stderr(`[analyst] ${line}\n`),
  });
  io.stdout(
    `${result.image} ${result.built ? 'built' : 'up to date'} (recipe ${result.recipe} ${result.hash}, profile ${result.profile})\n`,
  );
  return 0;
}
