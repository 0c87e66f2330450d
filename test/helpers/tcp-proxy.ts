/**
 * A loopback TCP proxy that a test can cut, silence and restore, to play a dependency that goes
 * away (connections refused and reset) or stops answering (connections open, no bytes flowing).
 */

import { once } from 'node:events';
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Drops every connection and refuses new ones until `restore()`. */
  cut(): void;
  /**
   * A network partition: every connection stays open but no byte (nor FIN) is forwarded either
   * way, and new connections are accepted but get no answer, until `restore()`.
   */
  silence(): void;
  /**
   * Ends a cut or a silence. A healed partition: connections both ends still hold carry on, and
   * what was sent meanwhile is delivered late; one that an end gave up on (destroyed) while silenced
   * is closed on the other end too, as a peer learns of a dropped connection once packets flow again.
   */
  restore(): void;
  close(): Promise<void>;
}

/** A client connection and its upstream one; bytes flow between them only while linked. */
interface Pair {
  client: net.Socket;
  upstream: net.Socket;
}

function link({ client, upstream }: Pair): void {
  client.pipe(upstream);
  upstream.pipe(client);
}

function unlink({ client, upstream }: Pair): void {
  // Unpiped and paused, a socket reads nothing: its bytes, and its end, wait in the kernel.
  client.unpipe(upstream);
  upstream.unpipe(client);
  client.pause();
  upstream.pause();
}

/** Starts a proxy on 127.0.0.1 (a free port) that forwards to `targetHost:targetPort`. */
export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let state: 'up' | 'cut' | 'silent' = 'up';
  const pairs = new Set<Pair>();
  // allowHalfOpen: a FIN from the client must not be answered by the proxy itself (Node's default
  // would end our side at once), or a silenced connection would still close as if it were healthy.
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    if (state === 'cut') return void client.destroy();
    const pair: Pair = { client, upstream: net.connect({ port: targetPort, host: targetHost, allowHalfOpen: true }) };
    pairs.add(pair);
    for (const s of [pair.client, pair.upstream]) s.on('error', () => {});
    const drop = () => {
      pairs.delete(pair);
      pair.client.destroy();
      pair.upstream.destroy();
    };
    pair.client.on('close', drop);
    pair.upstream.on('close', drop);
    if (state === 'up') link(pair);
    else unlink(pair);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const destroyAll = () => {
    for (const { client, upstream } of pairs) {
      client.destroy();
      upstream.destroy();
    }
  };
  return {
    port: (server.address() as net.AddressInfo).port,
    cut: () => {
      state = 'cut';
      destroyAll();
    },
    silence: () => {
      state = 'silent';
      for (const pair of pairs) unlink(pair);
    },
    restore: () => {
      if (state === 'silent') for (const pair of pairs) link(pair);
      state = 'up';
    },
    close: async () => {
      destroyAll();
      server.close();
      await once(server, 'close');
    },
  };
}
