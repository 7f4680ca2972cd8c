import { type ParseArgsConfig, parseArgs } from 'node:util';
import { InvalidInputError } from '../errors/index.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Strict flag parsing: an unknown flag or a missing value is a usage error (exit 2). */
export function parseFlags<T extends Options>(argv: string[], options: T, usage: string) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new InvalidInputError(`${(error as Error).message}\nusage: ${usage}`);
  }
}

/** A number flag within bounds, e.g. `--timeout 10`. */
export function numberFlag(
  value: string | undefined,
  name: string,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed < min || parsed > max) {
    throw new InvalidInputError(`--${name} must be a number from ${min} to ${max} (got "${value}")`, {
      param: name,
    });
  }
  return parsed;
}
