import { writeFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { InvalidInputError } from '../../../errors/index.ts';
import type { ChatSession } from './session.ts';

/** What a command tells the loop: go on, or leave. */
export type CommandResult = 'continue' | 'quit';

interface ChatCommand {
  args: string;
  help: string;
  run(session: ChatSession, args: string[]): Promise<CommandResult | undefined>;
}

/** The slash commands of `analyst chat`. */
export const COMMANDS: Record<string, ChatCommand> = {
  help: {
    args: '',
    help: 'this list',
    async run(s) {
      s.say(helpText());
      return undefined;
    },
  },
  attach: {
    args: 'PATH…',
    help: "copy files into the thread's workspace",
    async run(s, args) {
      if (args.length === 0) throw new InvalidInputError('give the files to attach: /attach PATH…');
      await attach(s, args);
      return undefined;
    },
  },
  files: {
    args: '',
    help: "list the files in the thread's workspace (data and what the analysis made)",
    async run(s) {
      if (!s.thread) {
        s.say('no thread yet: ask a question or /attach a file first');
        return undefined;
      }
      const files = await s.backend.listFiles(s.thread.id);
      if (files.length === 0) s.say('the workspace is empty');
      for (const f of files) s.say(`  ${f.path}  ${s.paint('dim', `${f.bytes} bytes`)}`);
      return undefined;
    },
  },
  get: {
    args: 'NAME [FILE]',
    help: 'download a workspace file (to ./NAME unless FILE is given)',
    async run(s, [name, target]) {
      if (!name) throw new InvalidInputError('give the file to download: /get NAME [FILE]');
      if (!s.thread) throw new InvalidInputError('no thread yet: there are no files to get');
      const files = await s.backend.listFiles(s.thread.id);
      const match = files.find((f) => f.path === name) ?? files.find((f) => basename(f.path) === name);
      if (!match) throw new InvalidInputError(`no file ${name} in the workspace (see /files)`);
      const saved = await save(
        target ?? basename(match.path),
        await s.backend.downloadFile(s.thread.id, match.path),
      );
      s.say(`saved ${match.path} to ${saved}`);
      return undefined;
    },
  },
  report: {
    args: '[md|html|pdf] [FILE]',
    help: 'the report of this thread: Markdown shown here, or saved to FILE (html and pdf are always saved)',
    async run(s, args) {
      if (!s.thread) throw new InvalidInputError('no thread yet: ask a question first');
      const format = (['md', 'html', 'pdf'] as const).find((f) => f === args[0]?.toLowerCase());
      const file = format ? args[1] : args[0];
      const chosen =
        format ?? (file?.match(/\.(html|pdf)$/i)?.[1]?.toLowerCase() as 'html' | 'pdf' | undefined) ?? 'md';
      const body = await s.backend.report(s.thread.id, chosen);
      if (chosen === 'md' && !file) {
        s.say(body.toString('utf8').trimEnd());
        return undefined;
      }
      const saved = await save(file ?? `report-${s.thread.id}.${chosen}`, body);
      s.say(`saved the ${chosen} report to ${saved}`);
      return undefined;
    },
  },
  notebook: {
    args: '[FILE]',
    help: 'save the Jupyter notebook of this thread',
    async run(s, [file]) {
      if (!s.thread) throw new InvalidInputError('no thread yet: ask a question first');
      const saved = await save(
        file ?? `analysis-${s.thread.id}.ipynb`,
        await s.backend.notebook(s.thread.id),
      );
      s.say(`saved the notebook to ${saved}`);
      return undefined;
    },
  },
  threads: {
    args: '[N|ID]',
    help: 'list recent threads, or continue one (by its number in the list or its id)',
    async run(s, [pick]) {
      const threads = await s.backend.listThreads({ limit: 20 });
      if (pick) {
        const byNumber = /^\d+$/.test(pick) ? threads[Number(pick) - 1] : undefined;
        const thread = await s.open(byNumber?.id ?? pick);
        s.say(
          `continuing ${thread.id}${thread.title ? ` — ${thread.title}` : ''}${s.model ? ` (model ${s.model})` : ''}`,
        );
        return undefined;
      }
      if (threads.length === 0) s.say('no threads yet');
      threads.forEach((t, i) => {
        const here = t.id === s.thread?.id ? s.paint('green', ' ← this one') : '';
        const when = new Date(t.updatedAt * 1000).toISOString().replace('T', ' ').slice(0, 16);
        s.say(
          `${String(i + 1).padStart(3)}. ${t.id}  ${s.paint('dim', when)}  ${t.title ?? '(untitled)'}${here}`,
        );
      });
      return undefined;
    },
  },
  new: {
    args: '',
    help: 'start a new thread (its own workspace)',
    async run(s) {
      s.newThread();
      s.say('the next question starts a new thread');
      return undefined;
    },
  },
  model: {
    args: '[ID]',
    help: 'show the models, or use one for this thread',
    async run(s, [id]) {
      const models = await s.backend.listModels();
      if (!id) {
        const current = s.model ?? models.find((m) => m.default)?.id;
        for (const m of models)
          s.say(
            `  ${m.id === current ? s.paint('green', `* ${m.id}`) : `  ${m.id}`}${m.default ? s.paint('dim', ' (default)') : ''}`,
          );
        return undefined;
      }
      if (!models.some((m) => m.id === id))
        throw new InvalidInputError(`no model ${id}; the models are: ${models.map((m) => m.id).join(', ')}`);
      s.model = id;
      if (s.thread) s.thread = await s.backend.setThreadModel(s.thread.id, id);
      s.say(`using ${id}${s.thread ? ' for this thread' : ''}`);
      return undefined;
    },
  },
  retry: {
    args: '',
    help: 'ask the last question again (a new answer; the earlier one stays in the thread)',
    async run(s) {
      await s.ask(undefined, await lastQuestion(s));
      return undefined;
    },
  },
  edit: {
    args: 'QUESTION',
    help: 'replace the last question with QUESTION and ask it from where that one was asked',
    async run(s, words) {
      if (words.length === 0) throw new InvalidInputError('give the new question: /edit QUESTION');
      await s.ask(words.join(' '), await lastQuestion(s));
      return undefined;
    },
  },
  quit: { args: '', help: 'leave (so does Ctrl-D, or Ctrl-C twice)', run: async () => 'quit' },
};

const ALIASES: Record<string, string> = {
  exit: 'quit',
  q: 'quit',
  '?': 'help',
  thread: 'threads',
  regenerate: 'retry',
};

/** Runs one `/command args…` line. */
export async function runCommand(session: ChatSession, line: string): Promise<CommandResult> {
  const [word = '', ...args] = splitArgs(line.slice(1));
  const name = ALIASES[word.toLowerCase()] ?? word.toLowerCase();
  const command = COMMANDS[name];
  if (!command) throw new InvalidInputError(`unknown command /${word}: see /help`);
  return (await command.run(session, args)) ?? 'continue';
}

export function helpText(): string {
  const lines = Object.entries(COMMANDS).map(
    ([name, c]) => `  /${`${name} ${c.args}`.trim().padEnd(24)} ${c.help}`,
  );
  return [
    'Type a question about your data, or a command:',
    ...lines,
    'Ctrl-C stops the running analysis; Ctrl-C twice leaves. Arrow keys recall earlier lines.',
  ].join('\n');
}

/** The id of the thread's latest question, for /retry and /edit (docs/spec.md#revisions). */
async function lastQuestion(session: ChatSession): Promise<string> {
  const id = session.thread ? await session.backend.lastQuestionId(session.thread.id) : undefined;
  if (!id) throw new InvalidInputError('no question yet: ask one first');
  return id;
}

/** Files given on the command line or with /attach, uploaded into the thread's workspace. */
export async function attach(session: ChatSession, paths: string[]): Promise<void> {
  const thread = await session.ensureThread();
  for (const path of paths) {
    const placed = await session.backend.uploadFile(thread.id, path);
    session.say(`attached ${path} as ${placed.path} (${placed.bytes} bytes)`);
  }
}

/** Words of a command line; "double quotes" keep spaces. */
export function splitArgs(text: string): string[] {
  return [...text.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

/** Writes a downloaded file without replacing one that exists. */
async function save(path: string, body: Buffer): Promise<string> {
  const target = resolve(path);
  try {
    await writeFile(target, body, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new InvalidInputError(`${path} exists: give another file name`);
    throw error;
  }
  return target;
}
