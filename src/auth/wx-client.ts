/**
 * The WeChat mini-program login call, `GET {WX_API_BASE}/sns/jscode2session` (contract §3.2), with
 * WeChat's answers mapped to the contract's codes. The `session_key` WeChat returns stays inside this
 * module: it is dropped here, never returned, logged or stored. Neither is the app secret logged
 * (it travels in the query string, so no URL is ever logged).
 */
import { AppError } from '../errors/app-error.ts';
import type { Logger } from '../logger.ts';

/** Contract §3.2: WeChat gets 5 s per call. */
export const WX_TIMEOUT_MS = 5_000;

/** What a successful jscode2session tells us about the user. */
export interface WxIdentity {
  openid: string;
  unionid?: string;
}

export interface WxClient {
  /** Exchanges a mini-program login code for the user's identity, or throws the contract's error. */
  codeToIdentity(code: string): Promise<WxIdentity>;
}

export interface WxClientOptions {
  appId: string;
  secret: string;
  /** Base URL without a trailing slash (https://api.weixin.qq.com). */
  apiBase: string;
  log: Logger;
}

/** WeChat's openid / unionid: 28-character base64url-like strings; we allow any printable ASCII up to 128. */
const WX_ID = /^[\x21-\x7e]{1,128}$/;
const isWxId = (v: unknown): v is string => typeof v === 'string' && WX_ID.test(v);

const upstreamUnavailable = () =>
  new AppError('UPSTREAM_UNAVAILABLE', 'WeChat login is unavailable right now; try again shortly.');

/** WeChat answered; `errcode` 0 or absent means success. */
interface WxReply {
  errcode?: number;
  errmsg?: string;
  openid?: unknown;
  unionid?: unknown;
}

export function createWxClient(opts: WxClientOptions): WxClient {
  const endpoint = `${opts.apiBase}/sns/jscode2session`;

  /** One call; network trouble, timeouts, HTTP errors and non-JSON become UPSTREAM_UNAVAILABLE. */
  async function call(code: string): Promise<WxReply> {
    const query = new URLSearchParams({
      appid: opts.appId,
      secret: opts.secret,
      js_code: code,
      grant_type: 'authorization_code',
    });
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${endpoint}?${query}`, { signal: AbortSignal.timeout(WX_TIMEOUT_MS), redirect: 'error' });
      text = await res.text();
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      opts.log.warn(
        { reason: e.name === 'TimeoutError' ? 'timeout' : (e.cause?.code ?? e.name) },
        'wechat jscode2session failed',
      );
      throw upstreamUnavailable();
    }
    if (!res.ok) {
      opts.log.warn({ http_status: res.status }, 'wechat jscode2session answered an HTTP error');
      throw upstreamUnavailable();
    }
    // WeChat labels its JSON text/plain, so the body is parsed whatever the content type says.
    let reply: unknown;
    try {
      reply = JSON.parse(text);
    } catch {
      opts.log.warn({ http_status: res.status }, 'wechat jscode2session answered non-JSON');
      throw upstreamUnavailable();
    }
    if (!reply || typeof reply !== 'object' || Array.isArray(reply)) throw upstreamUnavailable();
    return reply as WxReply;
  }

  return {
    async codeToIdentity(code) {
      let reply = await call(code);
      // -1 is WeChat's "system busy": worth exactly one more try.
      if (reply.errcode === -1) reply = await call(code);
      const errcode = reply.errcode ?? 0;
      switch (errcode) {
        case 0:
          break;
        case 40029: // invalid code
        case 40163: // code already used
          throw new AppError('WX_CODE_INVALID', 'WeChat rejected the login code (invalid, used or expired).', {
            realm: 'customer',
          });
        case 40226: // user blocked by WeChat's risk control
          throw new AppError('ACCOUNT_DISABLED', 'WeChat refused this user.');
        case 45011: // per-user frequency limit
          throw new AppError('RATE_LIMITED', 'Too many WeChat logins for this user; try again in a minute.', {
            retryAfter: 60,
          });
        default:
          // -1 twice, or a code that means our own configuration is wrong (40013 bad appid, 40125 bad secret …).
          opts.log.error({ errcode, errmsg: reply.errmsg }, 'wechat jscode2session refused the call');
          throw upstreamUnavailable();
      }
      // Upstream data is input too: an id that is not a short printable string is refused here, so
      // nothing odd (U+0000, control characters, megabytes) reaches a statement or a log line.
      if (!isWxId(reply.openid)) {
        opts.log.error('wechat jscode2session answered without a usable openid');
        throw upstreamUnavailable();
      }
      if (reply.unionid !== undefined && reply.unionid !== null && reply.unionid !== '' && !isWxId(reply.unionid)) {
        opts.log.error('wechat jscode2session answered an unusable unionid');
        throw upstreamUnavailable();
      }
      const unionid = typeof reply.unionid === 'string' && reply.unionid !== '' ? reply.unionid : undefined;
      return { openid: reply.openid, unionid };
    },
  };
}
