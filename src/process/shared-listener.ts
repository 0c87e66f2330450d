/**
 * The listening socket of a worker cluster, bound once by the primary and handed to every worker as
 * several handles of the same socket.
 *
 * Why not node:cluster's own sharing: Node 20's libuv (1.46) accepts one connection per event-loop
 * turn and handle. A worker under load has long turns, so a burst of new connections (hundreds of
 * clients connecting at once, a load balancer re-opening its pool) waits in the kernel's accept queue
 * turn after turn — a `/healthz` probe behind it waits seconds. Each extra handle of the socket is one
 * more accept per turn (measured: 400 connections into a worker with 5 ms turns take 2.0 s with one
 * handle, 0.54 s with four, 0.29 s with eight), while an idle worker pays nothing for them (one
 * descriptor each; a wake-up tries them all, and those that find the queue empty cost one failed
 * accept). The primary never accepts: it holds the bound socket without watching it, exactly as
 * node:cluster's primary does (`net._createServerHandle` is the function cluster uses for that).
 */
import cluster from 'node:cluster';
import { lookup } from 'node:dns/promises';
import net from 'node:net';
import { constants as osConstants } from 'node:os';
import { getSystemErrorName } from 'node:util';

/**
 * Accepting handles per worker. `npm run soak` (256 keep-alive connections on the list, waves of 300
 * new connections, two workers on two cores): with 8, a fresh `/healthz` waited up to 0.84–1.02 s
 * behind a wave; with 32, at most 0.37–0.59 s in quiet runs but 0.94–1.21 s when the first wave met
 * workers still busy with the list's first seconds; with 128 (and the warm-up of warm-up.ts), 0.54
 * and 0.76 s in those same conditions. A handle costs one descriptor and one failed accept per wake-up.
 */
const ACCEPTORS_PER_WORKER = 128;

const ASK = 'shop:listener?';
/** A worker's message once it serves the socket. */
export const SERVING = 'shop:serving';
const GIVE = 'shop:listener';
/** The primary's message that begins a stop: close your handles of the socket (and say so), drain later. */
export const STOP_ACCEPTING = 'shop:stop-accepting';
/** A worker's answer: none of its handles accepts any more. */
export const STOPPED_ACCEPTING = 'shop:stopped-accepting';

/** A bound TCP handle (node's internal TCP wrap); opaque here, given to `net.Server#listen`. */
type TcpHandle = object;

interface InternalNet {
  _createServerHandle(address: string, port: number, addressType: number): TcpHandle | number;
}
interface BoundHandle {
  getsockname(out: { port?: number }): number;
  close(callback?: () => void): void;
}

const UV_EADDRINUSE = -(osConstants.errno.EADDRINUSE as number);

/**
 * Binds `host:port` as node:cluster's primary would — bound, not yet listening, so the kernel accepts
 * no connection before a server listens on it — and throws Node's usual error (`EADDRINUSE`…). The
 * primary shares it with its workers; a process serving alone binds with it too, before anything else.
 */
export async function bindListener(host: string, port: number): Promise<TcpHandle> {
  const address = net.isIP(host) ? host : (await lookup(host)).address;
  const handle = (net as unknown as InternalNet)._createServerHandle(address, port, net.isIPv6(address) ? 6 : 4);
  // libuv reports an EADDRINUSE bind only when the handle listens — which happens in a worker, on a
  // copy of the descriptor that no longer carries the error: the kernel would then give the worker a
  // random port. An unbound socket has port 0, so the primary says it here instead.
  const bound: { port?: number } = {};
  const failure =
    typeof handle === 'number'
      ? handle
      : (handle as BoundHandle).getsockname(bound) || (bound.port ? 0 : UV_EADDRINUSE);
  if (failure) {
    const code = getSystemErrorName(failure);
    throw Object.assign(new Error(`listen ${code}: ${address}:${port}`), { code, port, address });
  }
  return handle as TcpHandle;
}

export interface SharedListener {
  /**
   * Closes the primary's own copy of the socket (once every worker closed theirs, it stops listening)
   * and hands out no more copies: a worker still starting then never listens, and is stopped.
   */
  close(): void;
}

/** In the primary: answers each worker's request for the socket with its handles (each send duplicates the descriptor). */
export function shareListener(handle: TcpHandle): SharedListener {
  let closed = false;
  cluster.on('message', (worker, message: { type?: unknown }) => {
    if (message?.type !== ASK || closed) return;
    for (let i = 0; i < ACCEPTORS_PER_WORKER; i++) {
      worker.send({ type: GIVE }, handle as net.Server, { keepOpen: true });
    }
  });
  return {
    close() {
      if (closed) return;
      closed = true;
      (handle as BoundHandle).close();
    },
  };
}

/** In a worker: asks the primary for the socket and resolves with its handles once all have arrived. */
export function requestListeners(): Promise<TcpHandle[]> {
  const send = process.send?.bind(process);
  if (!cluster.isWorker || !send) throw new Error('requestListeners() runs in a cluster worker');
  return new Promise((resolve) => {
    const handles: TcpHandle[] = [];
    const onMessage = (message: { type?: unknown }, handle: unknown) => {
      if (message?.type !== GIVE || !handle) return;
      handles.push(handle as TcpHandle);
      if (handles.length < ACCEPTORS_PER_WORKER) return;
      process.off('message', onMessage);
      resolve(handles);
    };
    process.on('message', onMessage);
    send({ type: ASK });
  });
}
