import { buildAppImage } from '../../../deploy/app-image.ts';
import { InvalidInputError } from '../../../errors/index.ts';
import { parseFlags } from '../../args.ts';
import type { CommandIO } from '../../io.ts';
import { engineFromEnvironment, requireEngine } from '../sandbox/shared.ts';

export const usage = 'analyst deploy build [--recipe debian|dockerfile] [--image analyst:latest] [--force]';
export const summary =
  "build Analyst's app image for compose.yaml (from Debian packages and this checkout; skipped when unchanged)";

export async function run(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { recipe: { type: 'string' }, force: { type: 'boolean' }, image: { type: 'string' } },
    usage,
  );
  if (positionals.length > 0)
    throw new InvalidInputError(`unexpected argument "${positionals[0]}"\nusage: ${usage}`);
  const recipe = values.recipe ?? 'debian';
  if (recipe !== 'debian' && recipe !== 'dockerfile')
    throw new InvalidInputError(`--recipe must be debian or dockerfile (got "${values.recipe}")`);
  const engine = engineFromEnvironment(io);
  await requireEngine(engine.docker, engine.endpoint);
  const result = await buildAppImage(engine.docker, {
    image: values.image ?? io.env.ANALYST_IMAGE ?? 'analyst:latest',
    recipe,
    force: values.force,
    log: (line) => io.stderr(`[analyst] ${line}\n`),
  });
  io.stdout(
    `${result.image} ${result.built ? 'built' : 'up to date'} (recipe ${result.recipe} ${result.hash})\n`,
  );
  return 0;
}
