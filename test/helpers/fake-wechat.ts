/**
 * A local stand-in for WeChat's `GET /sns/jscode2session` on 127.0.0.1. Like the real one it checks
 * appid, secret and grant_type, answers JSON labelled text/plain, and reports errors as `errcode`.
 * The `js_code` scripts the answer:
 *
 * | js_code                     | answer                                                    |
 * |-----------------------------|-----------------------------------------------------------|
 * | `ok:<openid>[:<anything>]`  | openid + session_key                                      |
 * | `union:<openid>:<unionid>`  | openid + unionid + session_key                            |
 * | `err:<errcode>`             | that errcode (40029, 40163, 40226, 45011, -1 …)           |
 * | `busy-once:<openid>:<id>`   | -1 the first time this exact code is seen, then success   |
 * | `slow`                      | success, but only after `slowMs` (past the client timeout)|
 * | `not-json`                  | an HTML error page with status 200                        |
 * | `http-<status>`             | that HTTP status with a JSON body                         |
 * | `no-openid`                 | errcode 0 but no openid                                   |
 * | `nul-openid`                | an openid holding U+0000                                  |
 * | `long-openid`               | an openid of 4096 characters                              |
 * | `bad-unionid:<openid>`      | openid + a unionid holding a newline and U+0000           |
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const FAKE_WX = { appId: 'wx-test-appid', secret: 'wx-test-secret-0123456789' } as const;

export interface FakeWeChat {
  /** Base URL for WX_API_BASE. */
  url: string;
  /** Every call received, in order (query parameters as sent). */
  calls: Array<Record<string, string>>;
  /** The env overrides that point a test app at this server. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startFakeWeChat(opts: { slowMs?: number } = {}): Promise<FakeWeChat> {
  const slowMs = opts.slowMs ?? 8_000;
  const calls: Array<Record<string, string>> = [];
  const seen = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();

  const json = (res: ServerResponse, body: unknown, status = 200) => {
    res.writeHead(status, { 'content-type': 'text/plain' }); // sic: WeChat labels its JSON text/plain
    res.end(JSON.stringify(body));
  };
  // A part missing from the code (`ok` with no openid) leaves its field out of the JSON answer.
  const identity = (openid: string | undefined, extra: Record<string, string | undefined> = {}) => ({
    openid,
    session_key: `sk-${openid}-must-never-leak`,
    ...extra,
  });

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== '/sns/jscode2session')
      return json(res, { errcode: 404, errmsg: 'no such api' }, 404);
    const q = Object.fromEntries(url.searchParams);
    calls.push(q);
    if (q.appid !== FAKE_WX.appId) return json(res, { errcode: 40013, errmsg: 'invalid appid' });
    if (q.secret !== FAKE_WX.secret) return json(res, { errcode: 40125, errmsg: 'invalid appsecret' });
    if (q.grant_type !== 'authorization_code') return json(res, { errcode: 40002, errmsg: 'invalid grant_type' });
    const code = q.js_code ?? '';
    if (!code) return json(res, { errcode: 41008, errmsg: 'missing code' });

    const [kind = '', a, b] = code.split(':');
    switch (kind) {
      case 'ok':
        return json(res, identity(a));
      case 'union':
        return json(res, identity(a, { unionid: b }));
      case 'err':
        return json(res, { errcode: Number(a), errmsg: `scripted error ${a}` });
      case 'busy-once':
        if (!seen.has(code)) {
          seen.add(code);
          return json(res, { errcode: -1, errmsg: 'system error' });
        }
        return json(res, identity(a));
      case 'slow': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          json(res, identity('slow-user'));
        }, slowMs);
        timers.add(timer);
        return;
      }
      case 'not-json':
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html><body>502 Bad Gateway</body></html>');
      case 'no-openid':
        return json(res, { errcode: 0, errmsg: 'ok', session_key: 'sk-without-openid' });
      case 'nul-openid':
        return json(res, identity('o-nul-\u0000-id'));
      case 'long-openid':
        return json(res, identity('o'.repeat(4096)));
      case 'bad-unionid':
        return json(res, identity(a, { unionid: 'u-\n-\u0000' }));
      default:
        if (kind.startsWith('http-')) return json(res, { errcode: -1, errmsg: 'gateway' }, Number(kind.slice(5)));
        return json(res, { errcode: 40029, errmsg: 'invalid code' });
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    calls,
    env: { WX_APPID: FAKE_WX.appId, WX_SECRET: FAKE_WX.secret, WX_API_BASE: url },
    close: async () => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A base URL on 127.0.0.1 where nothing listens (connection refused). */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return `http://127.0.0.1:${port}`;
}
