import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SandboxContainer } from '../../src/sandbox/docker/sandbox-container.ts';
import { type SessionContainerDeps, SessionContainers } from '../../src/sandbox/docker/session-containers.ts';
import type { WorkspaceSlots } from '../../src/sandbox/docker/workspace-slots.ts';
import { SandboxBusyError } from '../../src/sandbox/errors/sandbox-busy-error.ts';
import type { Workspace } from '../../src/workspace/workspace.ts';

/** A container as SessionContainers sees one: alive until retired, with a slot. */
function fakeContainer(name: string, now: number) {
  return {
    name,
    alive: true,
    createdAt: now,
    lastUsedAt: now,
    slot: `/slots/${name}`,
    workspace: undefined,
  } as {
    name: string;
    alive: boolean;
    createdAt: number;
    lastUsedAt: number;
    slot: string;
    workspace: Workspace | undefined;
  };
}

function fakeWorkspace(id: string): Workspace {
  return {
    id,
    mount: () => ({ path: `/workspaces/${id}` }),
    ready: async () => {},
    keepMounted: <T>(work: () => Promise<T>) => work(),
  } as unknown as Workspace;
}

function harness(limits: Partial<SessionContainerDeps['limits']> = {}) {
  let clock = 1_000_000;
  const warm: ReturnType<typeof fakeContainer>[] = [];
  const started: string[] = [];
  const retired: string[] = [];
  const givenBack: string[] = [];
  const attached: Array<[string, string]> = [];
  let count = 0;
  const sessions = new SessionContainers({
    limits: {
      idleMs: 120_000,
      statefulIdleMs: 1_800_000,
      maxSessions: 10,
      capacityWaitMs: 300,
      maxAgeMs: 6 * 3600_000,
      ...limits,
    },
    now: () => clock,
    takeWarm: () => warm.shift() as unknown as SandboxContainer | undefined,
    start: async (id) => {
      started.push(id);
      return Object.assign(fakeContainer(`started-${++count}`, clock), {
        rename: async () => {},
      }) as unknown as SandboxContainer;
    },
    retire: (container) => {
      (container as unknown as { alive: boolean }).alive = false;
      retired.push(container.name);
    },
    giveBack: (container) => {
      (container as unknown as { alive: boolean }).alive = false;
      givenBack.push(container.name);
    },
    slots: async () =>
      ({
        attach: async (slot: string, source: string) => {
          attached.push([slot, source]);
        },
      }) as unknown as WorkspaceSlots,
  });
  return {
    sessions,
    warm,
    started,
    retired,
    givenBack,
    attached,
    advance: (ms: number) => {
      clock += ms;
    },
    addWarm: () => {
      const container = Object.assign(fakeContainer(`warm-${++count}`, clock), { rename: async () => {} });
      warm.push(container);
      return container;
    },
  };
}

describe('session containers: held while a thread is active', () => {
  test('a warm container serves a new session with its workspace attached to the slot', async () => {
    const h = harness();
    const pooled = h.addWarm();
    const session = h.sessions.session('t1', fakeWorkspace('ws-1'));
    const container = await h.sessions.acquire(session);
    assert.equal(container.name, pooled.name);
    assert.deepEqual(h.attached, [[pooled.slot, '/workspaces/ws-1']]);
    assert.equal(container.workspace?.id, 'ws-1');
    assert.deepEqual(h.started, [], 'no container was started');
    assert.equal(await h.sessions.acquire(session), container, 'the same container serves the next cell');
  });

  test('an idle stateless session gives its container back after idleMs; the next cell gets another', async () => {
    const h = harness();
    const session = h.sessions.session('t1', fakeWorkspace('ws-1'));
    const first = await h.sessions.acquire(session);
    h.advance(119_000);
    h.sessions.sweep();
    assert.deepEqual(h.givenBack, [], 'not yet idle long enough');
    h.advance(2_000);
    h.sessions.sweep();
    assert.deepEqual(h.givenBack, [first.name]);
    assert.equal(h.sessions.liveCount, 0);
    const second = await h.sessions.acquire(h.sessions.session('t1', fakeWorkspace('ws-1')));
    assert.notEqual(second.name, first.name);
    assert.equal(h.attached.at(-1)?.[1], '/workspaces/ws-1', 'the same workspace comes back');
    assert.equal(h.sessions.takeLostStateNote('t1', false), undefined, 'stateless: nothing was lost');
  });

  test('a stateful session keeps its container for statefulIdleMs, then says its variables are gone', async () => {
    const h = harness();
    const session = h.sessions.session('t1', fakeWorkspace('ws-1'));
    await h.sessions.acquire(session);
    session.statefulUsed = true;
    h.advance(10 * 60_000);
    h.sessions.sweep();
    assert.deepEqual(h.givenBack, [], 'kept past the stateless idle time');
    h.advance(21 * 60_000);
    h.sessions.sweep();
    assert.equal(h.givenBack.length, 1);
    const note = h.sessions.takeLostStateNote('t1', true);
    assert.match(note ?? '', /variables of earlier cells are gone \(files in the workspace are kept\)/);
    assert.equal(h.sessions.takeLostStateNote('t1', true), undefined, 'said once');
  });

  test('at the total cap the least recently used idle container is given back first', async () => {
    const h = harness({ maxSessions: 2 });
    const a = h.sessions.session('a', fakeWorkspace('ws-a'));
    const b = h.sessions.session('b', fakeWorkspace('ws-b'));
    const ca = await h.sessions.acquire(a);
    h.advance(1000);
    const cb = await h.sessions.acquire(b);
    ca.lastUsedAt = 1;
    cb.lastUsedAt = 2;
    await h.sessions.acquire(h.sessions.session('c', fakeWorkspace('ws-c')));
    assert.deepEqual(h.givenBack, [ca.name], 'a, used least recently, made room');
    assert.equal(h.sessions.liveCount, 2);
  });

  test('when every container under the cap runs a cell, a new one waits, then SandboxBusyError', async () => {
    const h = harness({ maxSessions: 1, capacityWaitMs: 200 });
    const a = h.sessions.session('a', fakeWorkspace('ws-a'));
    let release!: () => void;
    const running = a.enqueue(async () => {
      await h.sessions.acquire(a);
      await new Promise<void>((r) => {
        release = r;
      });
    });
    await new Promise((r) => setTimeout(r, 10));
    const b = h.sessions.session('b', fakeWorkspace('ws-b'));
    const started = Date.now();
    // The fake clock does not move by itself: let it follow real time for the wait.
    const ticker = setInterval(() => h.advance(50), 50);
    try {
      await assert.rejects(h.sessions.acquire(b), (error: unknown) => {
        assert.ok(error instanceof SandboxBusyError);
        assert.equal(error.status, 503);
        assert.equal(error.retryAfterSeconds, 5);
        assert.match(error.message, /all 1 sandboxes of this server are running cells/);
        return true;
      });
    } finally {
      clearInterval(ticker);
    }
    assert.ok(Date.now() - started >= 150, 'it waited before refusing');
    release();
    await running;
    assert.equal((await h.sessions.acquire(b)).alive, true, 'room once the cell ended');
  });

  test('a session moved to another workspace starts anew (its old container is given back)', async () => {
    const h = harness();
    const first = await h.sessions.acquire(h.sessions.session('t1', fakeWorkspace('ws-1')));
    h.sessions.session('t1', fakeWorkspace('ws-2'));
    assert.deepEqual(h.retired, [first.name]);
    await h.sessions.acquire(h.sessions.session('t2', fakeWorkspace('ws-3')));
    assert.deepEqual(
      h.sessions.live().map((s) => s.id),
      ['t2'],
    );
  });
});
