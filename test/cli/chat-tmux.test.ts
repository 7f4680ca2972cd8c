import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startScriptedModel } from '../../src/llm/scripted/index.ts';
import type { ScriptedModel } from '../../src/llm/scripted/server.ts';
import { BIN, cliEnv, exited, releaseWorkspaces } from './chat-helpers.ts';

const SIMPSON = resolve('examples/simpson/Simpson.csv');
const OUTPUT = resolve('test-output/cli');

/** A tmux server of its own (-L), so nothing here touches anyone else's sessions. */
class Terminal {
  readonly socket = `analyst-chat-${randomBytes(4).toString('hex')}`;
  readonly statusFile = join(tmpdir(), `${this.socket}.status`);

  tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }

  start(command: string[], cwd: string, env: Record<string, string>): void {
    const exports = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`);
    // The shell writes the program's exit status to a file: tmux's own pane_dead_status is sometimes
    // missing when the pane is already marked dead.
    const line = `cd ${shellQuote(cwd)} && env ${exports.join(' ')} ${command.map(shellQuote).join(' ')}; echo $? > ${shellQuote(this.statusFile)}`;
    this.tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'chat', '-x', '200', '-y', '50', line);
    this.tmux('set-option', '-t', 'chat', 'remain-on-exit', 'on');
    this.tmux('set-option', '-t', 'chat', 'history-limit', '50000');
  }

  /** Everything on the screen and in the scrollback, escapes stripped. */
  screen(): string {
    return this.tmux('capture-pane', '-p', '-J', '-S', '-50000', '-t', 'chat');
  }

  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', 'chat', ...keys);
  }

  type(text: string): void {
    this.tmux('send-keys', '-t', 'chat', '-l', text);
    this.tmux('send-keys', '-t', 'chat', 'Enter');
  }

  /** Waits until the screen matches, counting matches from `after` occurrences on. */
  async waitFor(pattern: RegExp, options: { count?: number; timeoutMs?: number } = {}): Promise<string> {
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    const count = options.count ?? 1;
    const global = new RegExp(
      pattern.source,
      pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`,
    );
    let screen = '';
    while (Date.now() < deadline) {
      screen = this.screen();
      if ((screen.match(global)?.length ?? 0) >= count) return screen;
      await new Promise((r) => setTimeout(r, 150));
    }
    throw new Error(`timed out waiting for ${pattern} (×${count}); the screen:\n${screen}`);
  }

  /** Whether the program has ended, and its exit status (empty while it runs). */
  paneDead(): { dead: boolean; status: string } {
    const status = existsSync(this.statusFile) ? readFileSync(this.statusFile, 'utf8').trim() : '';
    return { dead: status !== '', status };
  }

  /** Ends the tmux server and waits (up to 20 s) for the program in the pane to exit. */
  async kill(): Promise<void> {
    let pid: number | undefined;
    try {
      pid = Number(this.tmux('display-message', '-p', '-t', 'chat', '#{pane_pid}').trim()) || undefined;
      this.tmux('kill-server');
    } catch {
      // already gone
    }
    if (pid !== undefined) await exited(pid, 20_000);
    rmSync(this.statusFile, { force: true });
  }
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

describe('analyst chat on a terminal (tmux)', () => {
  let root: string;
  let data: string;
  let model: ScriptedModel;
  const terminal = new Terminal();

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'analyst-chat-tmux-'));
    data = await mkdtemp(join(tmpdir(), 'act-'));
    // A scripted stand-in for a model: one slow cell (to press Ctrl-C during), one quick one.
    model = await startScriptedModel({
      script: {
        model: 'scripted',
        mode: 'match',
        turns: [
          {
            when: { last_role: 'user', last_contains: 'slow' },
            content:
              '<Analyze>This takes a while.</Analyze>\n<Code>\nimport time\nprint("started", flush=True)\ntime.sleep(25)\n</Code>',
          },
          {
            when: { last_role: 'user', last_contains: 'quick' },
            content: '<Analyze>A quick sum.</Analyze>\n<Code>\nprint(6 * 7)\n</Code>',
          },
          {
            when: { last_role: 'execute', last_contains: '42' },
            content: '<Answer>The sum is **42**.</Answer>',
          },
          { when: { last_role: 'execute' }, content: '<Answer>Done.</Answer>' },
        ],
      },
    });
    await writeFile(
      join(root, 'models.json'),
      JSON.stringify({
        default: 'offline',
        models: [{ id: 'scripted', protocol: 'deepanalyze', base_url: model.url, model: 'scripted' }],
      }),
    );
  });

  after(async () => {
    await terminal.kill();
    await model.close();
    // A chat killed mid-test leaves its workspaces mounted; the store destroys them.
    await releaseWorkspaces(data);
    await rm(root, { recursive: true, force: true });
    await rm(data, { recursive: true, force: true });
  });

  test('a whole conversation: a question, Ctrl-C during a running cell, commands, history, two Ctrl-Cs to leave', async () => {
    terminal.start(
      [process.execPath, BIN, 'chat', SIMPSON, '--data-dir', data, '--models', join(root, 'models.json')],
      root,
      cliEnv({ TERM: 'xterm-256color' }),
    );
    await terminal.waitFor(/analyst› $/m, { timeoutMs: 90_000 });
    let screen = terminal.screen();
    assert.match(screen, /analyst chat — an in-process server/);
    assert.match(screen, /attached .*Simpson\.csv as Simpson\.csv/);

    // The offline analyst answers, with Simpson's paradox named.
    terminal.type('Which teaching method (treatment) performs better?');
    screen = await terminal.waitFor(/── completed in/, { timeoutMs: 120_000 });
    assert.match(screen, /▍Analyze/);
    assert.match(screen, /▍Code/);
    // The answer's Markdown is rendered: no ** nor table pipes nor server paths (issue 31, defect 9).
    assert.match(screen, /▍Answer\nOverall, “treatment” 0 has the highest mean “success”/);
    assert.match(screen, /^\[image: success_by_treatment\.png\]$/m);
    assert.match(screen, /^treatment +mean +count +rate \(%\)$/m);
    const answer = screen.slice(screen.indexOf('▍Answer'));
    assert.doesNotMatch(answer, /\*\*|^\|/m);
    assert.doesNotMatch(answer, /\/v1\/threads/);
    // Code is set apart behind a gutter; the loader cell is folded, not printed whole.
    assert.match(screen, /^│ import pandas as pd$/m);
    assert.match(screen, /^│ … \d+ more lines \(--show-code shows all code\)$/m);
    assert.doesNotMatch(screen, /def text_encoding/);
    assert.match(screen, /Simpson's paradox/);
    assert.match(screen, /created: success_by_treatment\.png/);
    await terminal.waitFor(/analyst› $/m);

    // Another model for this thread, then Ctrl-C while its cell runs: the run stops, the session stays.
    terminal.type('/model scripted');
    await terminal.waitFor(/using scripted for this thread/);
    terminal.type('please do something slow');
    // The cell has printed, and the spinner goes on under its output while it still runs.
    await terminal.waitFor(/^started\n. running cell · \d+\.\d s/m, { timeoutMs: 60_000 });
    const pressed = Date.now();
    terminal.keys('C-c');
    screen = await terminal.waitFor(/── cancelled in/, { timeoutMs: 30_000 });
    assert.ok(Date.now() - pressed < 15_000, 'the cell was stopped, not waited for');
    assert.match(screen, /stopping the analysis… \(Ctrl-C again to leave\)/);
    await terminal.waitFor(/analyst› $/m);
    // One line says the run was cancelled (issue 31, defect 9), after the one saying it stops.
    screen = terminal.screen();
    const stopped = screen.slice(screen.lastIndexOf('stopping the analysis'));
    await mkdir(OUTPUT, { recursive: true });
    await writeFile(join(OUTPUT, 'chat-cancelled.txt'), stopped);
    assert.equal(stopped.match(/^.*cancel.*$/gim)?.length, 1, stopped);
    assert.match(stopped, /── cancelled in/);
    assert.equal(terminal.paneDead().dead, false, 'Ctrl-C during a run does not leave');

    // The same thread goes on.
    terminal.type('now something quick');
    screen = await terminal.waitFor(/The sum is 42\./, { timeoutMs: 60_000 });
    assert.match(screen, /^42$/m);

    // Files, downloads, report, notebook, threads.
    terminal.type('/files');
    screen = await terminal.waitFor(/success_by_treatment\.png {2}\d+ bytes/);
    terminal.type('/get success_by_treatment.png chart.png');
    await terminal.waitFor(/saved success_by_treatment\.png to .*chart\.png/);
    assert.equal((await readFile(join(root, 'chart.png'))).subarray(1, 4).toString(), 'PNG');
    terminal.type('/report html report.html');
    await terminal.waitFor(/saved the html report to .*report\.html/, { timeoutMs: 60_000 });
    assert.match(await readFile(join(root, 'report.html'), 'utf8'), /Simpson/);
    terminal.type('/notebook');
    await terminal.waitFor(/saved the notebook to .*analysis-thread-[0-9a-f]{24}\.ipynb/);
    terminal.type('/threads');
    await terminal.waitFor(
      /1\. thread-[0-9a-f]{24} .*Which teaching method \(treatment\) performs better\? ← this one/,
    );
    terminal.type('/help');
    await terminal.waitFor(/\/attach PATH…/);

    // The up arrow brings back the last line.
    terminal.keys('Up');
    await terminal.waitFor(/analyst› \/help$/m);
    terminal.keys('C-u');

    // Ctrl-C at the prompt warns; a second one leaves.
    terminal.keys('C-c');
    await terminal.waitFor(/\(Ctrl-C again, \/quit or Ctrl-D to leave\)/);
    assert.equal(terminal.paneDead().dead, false);
    terminal.keys('C-c');
    const deadline = Date.now() + 30_000;
    while (!terminal.paneDead().dead && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(terminal.paneDead(), { dead: true, status: '130' });
    assert.ok(existsSync(join(root, 'report.html')));
  });
});
