/**
 * The front door (contract §7.6 at the speed of a bare HTTP server): a `GET` or `HEAD` of a public
 * read is served before Express is entered — from the answer cache, or by running the read through the
 * route runner (run.ts) as Express would. Everything such an answer carries comes from the functions
 * Express's middleware calls too (http/answer-rules.ts, the request scope, the CORS rules,
 * http/prepared-body.ts), so the two paths cannot drift; test/http/front-door.test.ts holds them to
 * the same headers, log line and metrics. Anything the door does not read plainly (another method, an
 * odd path, a query the validation refuses, a missing Host) goes to Express unchanged; a read that
 * ends in an error (an unknown item) is handed to Express with that error, which answers it as always.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { LRUCache } from 'lru-cache';
import { observeOnce } from '../http/access-log.ts';
import { type AnswerFacts, setSecurityHeaders } from '../http/answer-rules.ts';
import type { Cors } from '../http/cors.ts';
import { openRequestScope } from '../http/request-scope.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { RequestContext } from '../request-context.ts';
import { type RestInput, validatedInput } from './inputs.ts';
import type { CompiledRoute } from './route.ts';
import { answerKey, type RouteRunner, type ValidatedRead } from './run.ts';

export interface FrontDoorDeps {
  routes: CompiledRoute[];
  runner: Pick<RouteRunner, 'answerRead' | 'sendAnswer' | 'handOver'>;
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
 * A public read the door recognised: validated already (a request line seen before), or the request
 * line (with its SecondSight hash) and what the route reads of it, to be validated.
 */
type Visit = ValidatedRead | { route: CompiledRoute; url: string; sight: number; input: RestInput };

/**
 * Request lines (`/api/v1/items?page=2`) validated before, with what they validated to: the same line
 * always validates to the same arguments (public reads read nothing else of the request), so a
 * repeated one skips parsing and validation. Bounded in entries and line length. (Nothing mutates
 * validated arguments: resolvers read them.)
 */
const KNOWN_LINES = 10_000;
const KNOWN_LINE_LENGTH = 512;

/**
 * Which request lines came lately, as a 32-bit hash (FNV-1a) of each in one of 4,096 slots: a line is
 * remembered among the known ones on its second sight. Keeping every line would make garbage of reads
 * spread over many lines (100,000 item ids, uniformly: 10,000 known lines churning cost 3–7 µs a
 * request of GC, measured), while the lines a storefront repeats — a page, a category list, what a
 * shopper types — come again within a few thousand requests. A typed array, so remembering allocates
 * nothing; two lines sharing a slot and a hash only cost one line its validation being kept early.
 */
class SecondSight {
  readonly #slots = new Int32Array(4096);

  /** The line's hash (FNV-1a, never 0, which an empty slot holds). */
  static hash(line: string): number {
    let hash = 0x811c9dc5;
    for (let i = 0; i < line.length; i++) hash = Math.imul(hash ^ line.charCodeAt(i), 0x01000193);
    return hash | 1;
  }

  /** True when the line of `hash` came before (as far as its slot remembers); remembers it either way. */
  again(hash: number): boolean {
    const seen = this.has(hash);
    this.#slots[hash & 4095] = hash;
    return seen;
  }

  /** True when the line of `hash` is the last its slot remembers. */
  has(hash: number): boolean {
    return this.#slots[hash & 4095] === hash;
  }
}

// The validation plugin's mappers take a context but never read it for these reads (no scopes).
const NO_CONTEXT = {} as RequestContext;

export interface FrontDoor {
  /** The public read `req` asks for, if the door reads it plainly; undefined: Express's business. */
  recognise(req: IncomingMessage): Visit | undefined;
  /** Serves the visit; false when Express is to answer it (refused input, or a read that failed). */
  serve(visit: Visit, req: IncomingMessage, res: ServerResponse): Promise<boolean>;
}

export function frontDoor(deps: FrontDoorDeps): FrontDoor {
  const doors: Door[] = deps.routes
    .filter((route) => route.publicRead && route.method === 'GET' && route.realm === undefined)
    .map((route) => {
      const params = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
      const source = route.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, '([^/]+)');
      return { route, params, pattern: new RegExp(`^${source}$`) };
    });

  const known = new LRUCache<string, ValidatedRead>({ max: KNOWN_LINES });
  const sightings = new SecondSight();
  // What the request line of each route's answers reports: the same for every request of the route.
  const facts = new Map(doors.map(({ route }) => [route, { route: route.path, operation: route.operationName }]));
  const factsOf = (route: CompiledRoute): AnswerFacts => facts.get(route)!;

  return {
    recognise(req) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
      // An HTTP/1.1 request without Host is refused by the app (problem+json), not served here.
      if (req.httpVersionMinor >= 1 && req.headers.host === undefined) return undefined;
      const url = req.url ?? '/';
      // A line is among the known ones only from its second sight on, and its slot then holds its
      // hash: a line whose slot holds another (most of 100,000 item ids read once each) is not looked
      // for in the 10,000 known ones — a lookup that missed cost ~0.7 µs, mostly memory. A known line
      // whose slot another line took since is validated once more, and remembered again.
      // (0: a line too long to be kept.)
      const sight = url.length <= KNOWN_LINE_LENGTH ? SecondSight.hash(url) : 0;
      if (sight !== 0 && sightings.has(sight)) {
        const read = known.get(url);
        if (read) return read;
      }
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
        return { route: door.route, url, sight, input };
      }
      return undefined;
    },

    async serve(visit, req, res) {
      let read: ValidatedRead;
      if ('key' in visit) read = visit;
      else {
        const { route } = visit;
        try {
          // The same arguments — defaults, trimming, every rule — as the runner validates (rest/run.ts).
          const { variables, args } = await validatedInput(route, visit.input, NO_CONTEXT);
          read = { route, variables, args, key: answerKey(route, args, variables) };
        } catch {
          return false; // refused input: the app names every problem
        }
        // Kept from its second sight on: a repeated line is then answered without parsing or validation.
        if (visit.sight !== 0 && sightings.again(visit.sight)) known.set(visit.url, read);
      }
      const { route } = read;
      openRequestScope(req, res, deps.log, deps.clientIp);
      observeOnce(req, res, deps.metrics, deps.graphqlEndpoint, factsOf(route));
      let answer: Awaited<ReturnType<typeof deps.runner.answerRead>>;
      try {
        answer = await deps.runner.answerRead(read, req, res);
      } catch (err) {
        deps.runner.handOver(req, err);
        return false;
      }
      setSecurityHeaders(res);
      deps.cors.answer(req, res);
      // Sent already unless it is being compressed (no promise to wait for on a small read).
      const sending = deps.runner.sendAnswer(req, res, answer);
      if (sending) await sending;
      return true;
    },
  };
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}
