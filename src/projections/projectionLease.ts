// Who may run a projection: one instance at a time on PostgreSQL (advisory locks), always us when embedded.
import pg from 'pg';

export interface ProjectionLease {
  tryAcquire(name: string): Promise<boolean>;
  holds(name: string): boolean;
  releaseAll(): Promise<void>;
}

/** Embedded mode has one process and one connection: it owns every projection. */
export class SoleOwnerLease implements ProjectionLease {
  async tryAcquire(): Promise<boolean> {
    return true;
  }
  holds(): boolean {
    return true;
  }
  async releaseAll(): Promise<void> {}
}

/**
 * Session-level advisory locks on a dedicated connection: if this process dies or its connection
 * drops, PostgreSQL releases the locks and another instance's runner takes over.
 */
export class AdvisoryLockLease implements ProjectionLease {
  private client?: pg.Client;
  private connecting?: Promise<pg.Client>;
  private readonly held = new Set<string>();
  // Loops ask concurrently; one pg client must run one query at a time.
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly connectionString: string,
    private readonly namespace: string,
  ) {}

  async tryAcquire(name: string): Promise<boolean> {
    if (this.held.has(name)) return true;
    const attempt = this.queue.then(async () => {
      if (this.held.has(name)) return true;
      const client = await this.connection();
      const result = await client.query<{ acquired: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS acquired', [`${this.namespace}:${name}`]);
      if (result.rows[0]?.acquired) this.held.add(name);
      return this.held.has(name);
    });
    this.queue = attempt.catch(() => undefined);
    return attempt;
  }

  holds(name: string): boolean {
    return this.held.has(name);
  }

  async releaseAll(): Promise<void> {
    this.held.clear();
    const client = this.client;
    this.client = undefined;
    this.connecting = undefined;
    await client?.end().catch(() => undefined);
  }

  private connection(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.connectionString, application_name: 'session-ledger-projections' });
      client.on('error', () => this.lost(client));
      client.on('end', () => this.lost(client));
      try {
        await client.connect();
      } catch (error) {
        this.connecting = undefined;
        throw error;
      }
      this.client = client;
      return client;
    })();
    return this.connecting;
  }

  // A dropped connection took its locks with it: stop claiming them, so runners pause and re-acquire.
  private lost(client: pg.Client): void {
    if (this.client !== client && this.client !== undefined) return;
    this.held.clear();
    this.client = undefined;
    this.connecting = undefined;
  }
}
