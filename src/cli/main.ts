import { ConfigurationError, InvalidInputError, isAnalystError } from '../errors/index.ts';
import * as chat from './commands/chat/index.ts';
import * as devScriptedModel from './commands/dev/scripted-model.ts';
import * as evalCommand from './commands/eval/index.ts';
import * as exec from './commands/exec/index.ts';
import * as runCommand from './commands/run/index.ts';
import * as sandboxBuild from './commands/sandbox/build.ts';
import * as sandboxDoctor from './commands/sandbox/doctor.ts';
import * as sandboxLs from './commands/sandbox/ls.ts';
import * as sandboxReap from './commands/sandbox/reap.ts';
import * as serve from './commands/serve/index.ts';
import { EXIT } from './exit-codes.ts';
import type { CommandIO } from './io.ts';

interface Command {
  usage: string;
  summary: string;
  run: (argv: string[], io: CommandIO) => Promise<number>;
}

/** The command table: `analyst <words…> [flags]`. */
export const COMMANDS: Record<string, Command> = {
  serve,
  chat,
  run: runCommand,
  exec,
  eval: evalCommand,
  'dev scripted-model': devScriptedModel,
  'sandbox build': sandboxBuild,
  'sandbox doctor': sandboxDoctor,
  'sandbox ls': sandboxLs,
  'sandbox reap': sandboxReap,
};

function helpText(): string {
  const lines = Object.values(COMMANDS).map((c) => `  ${c.usage}\n      ${c.summary}`);
  return `analyst: a self-hosted data-analysis agent\n\nusage:\n${lines.join('\n')}\n`;
}

/** Finds the command, runs it, and maps every failure to one exit code and one message. */
export async function main(argv: string[], io: CommandIO): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io.stdout(helpText());
    return argv.length === 0 ? EXIT.usage : EXIT.ok;
  }
  const key = [argv.slice(0, 2).join(' '), argv[0]!].find((k) => k in COMMANDS);
  if (!key) {
    io.stderr(`analyst: unknown command "${argv.slice(0, 2).join(' ')}"\n\n${helpText()}`);
    return EXIT.usage;
  }
  const command = COMMANDS[key]!;
  const rest = argv.slice(key.split(' ').length);
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(`usage: ${command.usage}\n${command.summary}\n`);
    return EXIT.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    io.stderr(`analyst ${key}: ${error instanceof Error ? error.message : String(error)}\n`);
    if (error instanceof InvalidInputError) return EXIT.usage;
    if (error instanceof ConfigurationError) return EXIT.config;
    if (
      isAnalystError(error) &&
      (error.code === 'sandbox_unavailable' || error.code === 'service_unreachable')
    )
      return EXIT.unavailable;
    return EXIT.software;
  }
}
