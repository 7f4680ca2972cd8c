import type { FastifyBaseLogger } from 'fastify';
import type { RunMonitor } from '../runs/run-hooks.ts';
import type { SandboxManager } from '../sandbox/sandbox.ts';

/**
 * The server's `RunMonitor`: background failures go to the log, and the runs of a replica
 * that stopped are logged and its containers reaped. The log is the app's, which is built
 * after the services: until `useLog`, failures are dropped (nothing runs before the app).
 */
export class ServerRunMonitor implements RunMonitor {
  private log: FastifyBaseLogger | undefined;

  constructor(private readonly sandbox: SandboxManager) {}

  useLog(log: FastifyBaseLogger): void {
    this.log = log;
  }

  error(error: unknown): void {
    this.log?.warn({ err: error }, 'background work failed');
  }

  interrupted(runIds: string[]): void {
    this.log?.warn({ runs: runIds }, 'marked runs of a replica that stopped as interrupted');
    void this.sandbox.reap().catch((error) => this.error(error));
  }
}
