import { InvalidInputError } from '../../../errors/index.ts';
import { buildSandboxImage } from '../../../sandbox/image/build.ts';
import type { RecipeKind } from '../../../sandbox/image/recipe.ts';
import { parseFlags } from '../../args.ts';
import type { CommandIO } from '../../io.ts';
import { engineFromEnvironment, requireEngine } from './shared.ts';

export const usage = 'analyst sandbox build [--recipe debian|dockerfile] [--force] [--image NAME]';
export const summary = 'build the data-science sandbox image (skipped when its recipe is unchanged)';

export async function run(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { recipe: { type: 'string' }, force: { type: 'boolean' }, image: { type: 'string' } },
    usage,
  );
  if (positionals.length > 0)
    throw new InvalidInputError(`unexpected argument "${positionals[0]}"\nusage: ${usage}`);
  const recipe = (values.recipe ?? 'debian') as RecipeKind;
  if (recipe !== 'debian' && recipe !== 'dockerfile') {
    throw new InvalidInputError(`--recipe must be debian or dockerfile (got "${values.recipe}")`);
  }
  const engine = engineFromEnvironment(io);
  await requireEngine(engine.docker, engine.endpoint);
  const result = await buildSandboxImage(engine.docker, {
    image: values.image ?? engine.image,
    recipe,
    force: values.force,
    log: (line) => io.stderr(`[analyst] ${line}\n`),
  });
  io.stdout(
    `${result.image} ${result.built ? 'built' : 'up to date'} (recipe ${result.recipe} ${result.hash})\n`,
  );
  return 0;
}
