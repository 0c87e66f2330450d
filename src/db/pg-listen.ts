/**
 * LISTEN on PostgreSQL for notifications that must not be missed unknowingly (the catalogue cache's
 * invalidations). It uses a connection of its own — a pooled one would be lent to other work — and
 * watches it: a heartbeat every 250 ms must answer within 500 ms, so a silent network is noticed in
 * well under a second; then the channel reports itself unhealthy at once and is dialled again every
 * second until it listens again (and reports healthy: what it missed meanwhile is unknowable).
 *
 * Behind PgBouncer in transaction mode LISTEN does not work (it holds session state): point
 * DATABASE_URL at PgBouncer in session mode, or at the server itself.
 */
import pg from 'pg';

/** A channel's notifications, and whether they can be trusted to arrive right now. */
export interface NotificationHandlers {
  onNotify(payload: string): void;
  /** Called with false as soon as the channel may have missed a notification, with true once it listens again. */
  onHealth(healthy: boolean): void;
}

const HEARTBEAT_MS = 250;
const HEARTBEAT_TIMEOUT_MS = 500;
const REDIAL_MS = 1_000;

/** Resolves true when `promise` settles within `ms`. */
const within = (promise: Promise<unknown>, ms: number) =>
  new Promise<boolean>((resolve) => {
    const timer = setTimeout(resolve, ms, false);
    const settle = (ok: boolean) => {
      clearTimeout(timer);
      resolve(ok);
    };
    promise.then(
      () => settle(true),
      () => settle(false),
    );
  });

/** Listens on `channel` (a fixed identifier of ours, never user input); resolves with the stop function. */
export async function listenPostgres(
  url: string,
  channel: string,
  handlers: NotificationHandlers,
): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  let healthy = false;
  let beating = false;
  const setHealth = (now: boolean) => {
    if (now === healthy) return;
    healthy = now;
    handlers.onHealth(now);
  };
  const drop = (c: pg.Client) => {
    (c as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
  };
  const lost = (c: pg.Client) => {
    if (client !== c) return;
    client = undefined;
    setHealth(false);
    drop(c);
    if (!stopped) setTimeout(dial, REDIAL_MS).unref();
  };
  const dial = async () => {
    if (stopped || client) return;
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000, keepAlive: true });
    c.on('error', () => lost(c));
    c.on('end', () => lost(c));
    c.on('notification', (n) => n.channel === channel && handlers.onNotify(n.payload ?? ''));
    try {
      client = c;
      if (
        !(await within(
          c.connect().then(() => c.query(`LISTEN "${channel}"`)),
          3_000,
        ))
      )
        throw new Error('LISTEN timed out');
      if (client === c) setHealth(true);
    } catch {
      lost(c);
    }
  };
  const heartbeat = setInterval(() => {
    const c = client;
    if (!c || !healthy || beating) return;
    beating = true;
    void within(c.query('SELECT 1'), HEARTBEAT_TIMEOUT_MS).then((ok) => {
      beating = false;
      if (!ok) lost(c);
    });
  }, HEARTBEAT_MS);
  heartbeat.unref();
  await dial();
  return async () => {
    stopped = true;
    clearInterval(heartbeat);
    const c = client;
    client = undefined;
    if (c && !(await within(c.end(), 500))) drop(c);
  };
}
