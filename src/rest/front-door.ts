/**
 * The front door (contract §7.6 at the speed of a bare HTTP server): a `GET` or `HEAD` of a public
 * read whose answer the answer cache holds is served before Express is entered. Everything such an
 * answer carries comes from the functions Express's middleware calls too (http/answer-rules.ts, the
 * CORS rules, http/prepared-body.ts), so the two paths cannot drift; test/http/front-door.test.ts
 * holds them to the same headers, log line and metrics. A miss, or anything the door does not read
 * plainly (another method, an odd path, a query the validation refuses, a missing Host), goes to
 * Express unchanged — which then counts the cache miss, validates and answers as always.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { LRUCache } from 'lru-cache';
import { validateFieldArgs } from '../graphql/field-guards.ts';
import { beginAnswer, observeAnswer, setSecurityHeaders } from '../http/answer-rules.ts';
import type { Cors } from '../http/cors.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { RequestContext } from '../request-context.ts';
import type { AnswerCache } from './answer-cache.ts';
import { argumentsOf, type RestInput, variablesOf } from './inputs.ts';
import { sendPublicAnswer } from './public-answer.ts';
import type { CompiledRoute } from './route.ts';
import { answerKey } from './run.ts';

export interface FrontDoorDeps {
  routes: CompiledRoute[];
  answers: AnswerCache;
  cors: Cors;
  log: Logger;
  metrics: Pick<Metrics, 'httpRequests' | 'httpDuration'>;
  graphqlEndpoint: string;
  /** The client's address under TRUST_PROXY, as Express works it out. */
  clientIp(req: IncomingMessage): string;
}

interface Door {
  route: CompiledRoute;
  pattern: RegExp;
  params: string[];
}

/**
 * A public read the door recognised: its route, and either its answer's key (a request line seen
 * before) or the request line and what the route reads of it, to be validated into that key.
 */
type Known = { route: CompiledRoute; key: string };
type Visit = Known | { route: CompiledRoute; url: string; input: RestInput };

/**
 * Request lines (`/api/v1/items?page=2`) whose arguments were validated before, with their answer
 * key: the same line always validates to the same arguments (public reads read nothing else of the
 * request), so a repeated one skips parsing and validation. Bounded in entries and line length.
 */
const KNOWN_LINES = 10_000;
const KNOWN_LINE_LENGTH = 512;

// The validation plugin's mappers take a context but never read it for these reads (no scopes).
const NO_CONTEXT = {} as RequestContext;

export interface FrontDoor {
  /** The public read `req` asks for, if the door reads it plainly; undefined: Express's business. */
  recognise(req: IncomingMessage): Visit | undefined;
  /** Serves the visit from the answer cache; false (nothing written) when the answer is not kept. */
  serve(visit: Visit, req: IncomingMessage, res: ServerResponse): Promise<boolean>;
}

export function frontDoor(deps: FrontDoorDeps): FrontDoor {
  const doors: Door[] = deps.routes
    .filter((route) => route.publicRead && route.method === 'GET')
    .map((route) => {
      const params = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
      const source = route.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, '([^/]+)');
      return { route, params, pattern: new RegExp(`^${source}$`) };
    });

  const keys = new LRUCache<string, Known>({ max: KNOWN_LINES });

  return {
    recognise(req) {
      if ((req.method !== 'GET' && req.method !== 'HEAD') || !deps.answers.enabled) return undefined;
      // An HTTP/1.1 request without Host is refused by the app (problem+json), not served here.
      if (req.httpVersionMinor >= 1 && req.headers.host === undefined) return undefined;
      const url = req.url ?? '/';
      const known = keys.get(url);
      if (known) return known;
      const queryAt = url.indexOf('?');
      const path = queryAt >= 0 ? url.slice(0, queryAt) : url;
      for (const door of doors) {
        const found = door.pattern.exec(path);
        if (!found) continue;
        const params: Record<string, string> = {};
        try {
          door.params.forEach((name, i) => {
            params[name] = decodeURIComponent(found[i + 1]!);
          });
        } catch {
          return undefined; // an undecodable path: the app's rule for it applies
        }
        // Express's `simple` query parser is node:querystring.
        const query = queryAt >= 0 ? (parseQuery(url.slice(queryAt + 1)) as Record<string, unknown>) : {};
        const input: RestInput = { query, params, header: (name) => headerOf(req, name) };
        return { route: door.route, url, input };
      }
      return undefined;
    },

    async serve(visit, req, res) {
      const { route } = visit;
      let key: string;
      if ('key' in visit) key = visit.key;
      else {
        try {
          // The same arguments — defaults, trimming, every rule — as the runner validates (rest/run.ts).
          const args = await validateFieldArgs(
            route.field,
            argumentsOf(route, variablesOf(route, visit.input)),
            NO_CONTEXT,
          );
          key = answerKey(route, args);
        } catch {
          return false; // refused input: the app names every problem
        }
        if (visit.url.length <= KNOWN_LINE_LENGTH) keys.set(visit.url, { route, key });
      }
      const answer = deps.answers.answer(key, { countMiss: false });
      if (!answer) return false;
      const requestId = beginAnswer(req, res);
      observeAnswer(req, res, deps.metrics, deps.graphqlEndpoint, {
        log: deps.log.child({ request_id: requestId }),
        route: () => route.path,
        clientIp: deps.clientIp(req),
        principal: () => undefined, // public reads authenticate nobody
        operation: () => route.operationName,
      });
      setSecurityHeaders(res);
      deps.cors.answer(req, res);
      await sendPublicAnswer(req, res, answer, deps.answers.maxAgeSeconds);
      return true;
    },
  };
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}
