import { NotFoundError } from '../errors/index.ts';
import type { ConnectionConfig } from './config.ts';
import type { ConnectionDriver, ConnectionKind, QueryRows, SchemaTable } from './connection.ts';
import { mysqlDriver } from './drivers/mysql-driver.ts';
import { postgresDriver } from './drivers/postgres-driver.ts';
import { sqliteDriver } from './drivers/sqlite-driver.ts';

/** What a caller may see of a connection: never its URL. */
export interface ConnectionInfo {
  id: string;
  kind: ConnectionKind;
  title: string;
  max_rows: number;
  timeout_s: number;
  schemas: string[];
}

export interface ConnectionRegistryOptions {
  /** Bytes of rows (as JSON) one statement keeps at most. Default 32 MiB. */
  maxBytes?: number;
  /** Builds a driver; tests may pass their own. Default: the kind's driver. */
  driverFor?: (config: ConnectionConfig) => ConnectionDriver;
}

function defaultDriver(config: ConnectionConfig): ConnectionDriver {
  if (config.kind === 'postgres') return postgresDriver({ id: config.id, url: config.url });
  if (config.kind === 'mysql') return mysqlDriver({ id: config.id, url: config.url });
  return sqliteDriver({ id: config.id, path: config.url });
}

/**
 * The operator's connections, each visible only to its keys: for any other key a connection
 * does not exist (NotFoundError, as for another key's thread). Drivers (and their pools)
 * are made on first use.
 */
export class ConnectionRegistry {
  private readonly drivers = new Map<string, ConnectionDriver>();
  readonly maxBytes: number;

  constructor(
    private readonly configs: readonly ConnectionConfig[],
    private readonly options: ConnectionRegistryOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
  }

  /** The connections `owner` may use, in file order. */
  list(owner: string): ConnectionInfo[] {
    return this.configs.filter((c) => visible(c, owner)).map(info);
  }

  /** The connection `id` if `owner` may use it, else NotFoundError. */
  config(owner: string, id: string): ConnectionConfig {
    const config = this.configs.find((c) => c.id === id);
    if (!config || !visible(config, owner)) {
      throw new NotFoundError(`no connection "${id}" (GET /v1/connections lists yours)`, {
        param: 'connection',
      });
    }
    return config;
  }

  info(owner: string, id: string): ConnectionInfo {
    return info(this.config(owner, id));
  }

  /** One read-only statement; `maxRows` is capped by the connection's own `max_rows`. */
  async query(
    owner: string,
    id: string,
    sql: string,
    options: { maxRows?: number } = {},
  ): Promise<QueryRows> {
    const config = this.config(owner, id);
    return this.driver(config).query(sql, {
      maxRows: Math.min(options.maxRows ?? config.maxRows, config.maxRows),
      maxBytes: this.maxBytes,
      timeoutMs: config.timeoutMs,
    });
  }

  async schema(owner: string, id: string): Promise<SchemaTable[]> {
    const config = this.config(owner, id);
    return this.driver(config).schema(config.schemas, { timeoutMs: config.timeoutMs });
  }

  async close(): Promise<void> {
    const drivers = [...this.drivers.values()];
    this.drivers.clear();
    await Promise.all(drivers.map((d) => d.close()));
  }

  private driver(config: ConnectionConfig): ConnectionDriver {
    let driver = this.drivers.get(config.id);
    if (!driver) {
      driver = (this.options.driverFor ?? defaultDriver)(config);
      this.drivers.set(config.id, driver);
    }
    return driver;
  }
}

function visible(config: ConnectionConfig, owner: string): boolean {
  return config.keys === 'all' || config.keys.includes(owner);
}

function info(config: ConnectionConfig): ConnectionInfo {
  return {
    id: config.id,
    kind: config.kind,
    title: config.title,
    max_rows: config.maxRows,
    timeout_s: config.timeoutMs / 1000,
    schemas: [...config.schemas],
  };
}
