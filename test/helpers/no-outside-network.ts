// Tests may only talk to this machine: any socket to another host fails the test loudly.
import net from 'node:net';

const LOCAL = /^(127\.\d+\.\d+\.\d+|::1|localhost|::ffff:127\.\d+\.\d+\.\d+)$/;
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function patched(this: net.Socket, ...args: unknown[]) {
  const first = args[0] as { host?: string; path?: string } | number | string;
  const host =
    typeof first === 'object' && first !== null ? first.host : typeof args[1] === 'string' ? args[1] : undefined;
  const isPipe = typeof first === 'object' && first !== null && first.path !== undefined;
  if (!isPipe && host !== undefined && !LOCAL.test(host)) {
    throw new Error(`test tried to reach ${host}: only 127.0.0.1 / ::1 are allowed`);
  }
  return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
} as typeof net.Socket.prototype.connect;
