// A TCP proxy between the service and PostgreSQL: tests make the database "go away" (every connection cut, new ones refused) without touching the server others use.
import { createServer, type Server, type Socket, connect } from 'node:net';

export class TcpProxy {
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();
  private away = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** Listens on a free loopback port and forwards every connection to `target`. */
  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    // eslint-disable-next-line prefer-const -- the server's callback names the proxy before it exists
    let proxy: TcpProxy | undefined;
    const server = createServer((client) => proxy!.accept(client, target));
    const port = await new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : 0);
      });
    });
    proxy = new TcpProxy(server, port);
    return proxy;
  }

  /** A URL like `url` that goes through this proxy. */
  urlFor(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString();
  }

  /** The local ports of the proxy's connections to the server: pg_stat_activity.client_port of the service's backends. */
  upstreamPorts(): number[] {
    return [...this.pairs].flatMap(({ upstream }) => (upstream.localPort ? [upstream.localPort] : []));
  }

  get connectionCount(): number {
    return this.pairs.size;
  }

  /** The database is gone: every open connection is cut at once (mid-query, mid-transaction) and new ones are dropped. */
  goAway(): void {
    this.away = true;
    for (const pair of this.pairs) this.cut(pair);
  }

  comeBack(): void {
    this.away = false;
  }

  async close(): Promise<void> {
    this.goAway();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket, target: { host: string; port: number }): void {
    if (this.away) {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    const pair = { client, upstream };
    this.pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const cut = () => this.cut(pair);
    for (const socket of [client, upstream]) {
      socket.on('error', cut);
      socket.on('close', cut);
    }
  }

  private cut(pair: { client: Socket; upstream: Socket }): void {
    this.pairs.delete(pair);
    // resetAndDestroy sends RST like a vanished host would, instead of an orderly FIN.
    for (const socket of [pair.client, pair.upstream]) {
      if (socket.destroyed) continue;
      if (socket.resetAndDestroy) socket.resetAndDestroy();
      else socket.destroy();
    }
  }
}
