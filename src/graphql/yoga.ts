/**
 * The GraphQL endpoint: graphql-yoga over the Pothos schema, hardened with graphql-armor
 * (depth, aliases, cost, tokens; field suggestions hidden in production) and with error masking left on.
 */
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import type { Request, Response } from 'express';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { AppError } from '../errors/app-error.ts';
import { toAppError } from '../errors/to-app-error.ts';
import type { Logger } from '../logger.ts';
import { useOperationMetrics } from '../observability/graphql-operations.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { RequestContext } from '../request-context.ts';
import { useCompiledDocuments } from './compiled-documents.ts';
import { useCostLimit } from './cost-limit.ts';
import { parseStreamedMultipart } from './streamed-upload.ts';

interface ServerRequestContext {
  req: Request;
  res: Response;
}

/** The Yoga server of the app, as the REST runner and the app use it. */
export type Yoga = YogaServerInstance<ServerRequestContext, RequestContext>;

export const GRAPHQL_ENDPOINT = '/graphql';

export interface YogaOptions {
  schema: GraphQLSchema;
  /** Whether `__schema` / `__type` may be queried. */
  introspection: boolean;
  /** Hide every "Did you mean …?" (production: they spell out the schema, like introspection). */
  hideFieldSuggestions: boolean;
  log: Logger;
  metrics: Metrics;
  contextFor: (req: Request, res: Response, readFromPrimary: boolean) => RequestContext;
  /** GRAPHQL_MAX_COST: the most a client's document may cost (cost-limit.ts). */
  maxCost: number;
  /** The most a multipart request's operation or map may hold (as much as a JSON body). */
  maxFieldBytes: number;
}

/**
 * A copy of `error` (location, path, extensions kept) carrying a contract code. The coded error stays
 * reachable as `originalError` (never serialised), so the REST adapters answer with its status and realm.
 */
function withCode(error: GraphQLError, coded: AppError) {
  return new GraphQLError(coded.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: coded,
    extensions: { ...error.extensions, ...coded.extensions },
  });
}

/**
 * graphql-js' "Did you mean …?" (fields, arguments, enum values, types) spells out the schema as
 * introspection would; where introspection is off it is hidden as graphql-armor hides field ones.
 */
const withoutSuggestions = (message: string) => message.replace(/ ?Did you mean .*\?$/s, ' [Suggestion hidden]');

/** Documents that fail validation (unknown fields, armor limits) are the client's invalid input. */
const validationErrorsAsContractCode = (hideSuggestions: boolean): Plugin => ({
  onValidate:
    () =>
    ({ result, setResult }) => {
      if (!result.length) return;
      setResult(
        result.map((e) => {
          const message = hideSuggestions ? withoutSuggestions(e.message) : e.message;
          return withCode(e, new AppError('VALIDATION_FAILED', message));
        }),
      );
    },
});

/**
 * A plugin that turns a failure of Yoga's request parser into the contract's error: `translate`
 * answers the error to throw instead, or undefined to let the parser's own through.
 */
const parserFailures = (translate: (err: unknown) => Error | undefined): Plugin => ({
  onRequestParse({ requestParser, setRequestParser }) {
    if (!requestParser) return;
    setRequestParser(async (request) => {
      try {
        return await requestParser(request);
      } catch (err) {
        throw translate(err) ?? err;
      }
    });
  },
});

/**
 * A GET whose `variables` or `extensions` parameter is not JSON makes Yoga's parser throw a bare
 * SyntaxError, which would be masked as INTERNAL and logged as a failure on every such request.
 * It is the client's malformed input: 400 VALIDATION_FAILED, not logged as an error.
 */
const malformedParamsAsValidation = parserFailures((err) =>
  err instanceof SyntaxError
    ? new GraphQLError('The `variables` or `extensions` parameter is not valid JSON.', {
        extensions: { code: 'VALIDATION_FAILED', http: { status: 400 } },
      })
    : undefined,
);

/**
 * GraphQL multipart requests (startImport's file) are read as they arrive (streamed-upload.ts), not
 * into memory whole as Yoga's own parser does: the file reaches the operation as a stream, and
 * startImport answers 413 PAYLOAD_TOO_LARGE at its first byte past IMPORT_MAX_BYTES.
 */
const streamedUploads = (maxFieldBytes: number): Plugin<object, ServerRequestContext> => ({
  onRequestParse({ request, serverContext, setRequestParser }) {
    if (request.method !== 'POST' || !isMultipart(request)) return;
    setRequestParser(() => parseStreamedMultipart(serverContext.req, maxFieldBytes));
  },
  // Answered before the body's end (an upload refused, or past the limit): the rest is not read, and
  // the connection ends with the answer (http/problem.ts does the same for REST).
  onResponse({ request, response, serverContext }) {
    if (request.method === 'POST' && isMultipart(request) && serverContext?.req.complete === false) {
      response.headers.set('Connection', 'close');
    }
  },
});

const isMultipart = (request: globalThis.Request) =>
  /^multipart\/form-data\b/i.test(request.headers.get('content-type') ?? '');

/**
 * CSRF, by graphql-yoga's plugin: a request a browser may send cross-site without asking first — a
 * multipart upload (startImport), a form or plain-text POST — must carry a header that no page of
 * another site can set without a CORS preflight: `Authorization` (every admin call has it) or
 * `x-graphql-yoga-csrf`. A GET is let through: Yoga runs no mutation from a GET, and the public reads
 * it serves (cacheable GET queries) change nothing. Refused: 403 FORBIDDEN, saying what to send.
 */
const csrfPrevention = (): Plugin => {
  const library = useCSRFPrevention({ requestHeaders: ['authorization', 'x-graphql-yoga-csrf'] });
  return {
    onRequestParse(payload) {
      if (payload.request.method === 'GET') return;
      try {
        return library.onRequestParse?.(payload as never);
      } catch {
        throw new AppError(
          'FORBIDDEN',
          'A multipart, form or plain-text request to /graphql must carry an Authorization or an x-graphql-yoga-csrf header (CSRF protection).',
          { extensions: { http: { status: 403 } } },
        );
      }
    },
  };
};

export function createGraphQLServer(opts: YogaOptions): Yoga {
  const armor = new EnvelopArmor({
    maxDepth: { n: 8 },
    maxAliases: { n: 15 },
    // Cost is the schema's own rule (cost-limit.ts: page sizes multiply), not armor's generic estimate.
    costLimit: { enabled: false },
    maxTokens: { n: 2000 },
    blockFieldSuggestion: { enabled: opts.hideFieldSuggestions },
  });
  return createYoga<ServerRequestContext, RequestContext>({
    schema: opts.schema,
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    // The service's own CORS answers (http/cors.ts, contract §7.5): Yoga's would echo any origin
    // and allow credentials.
    cors: false,
    // GraphiQL is served by src/graphql/graphiql.ts (assets instead of one inline page).
    graphiql: false,
    landingPage: false,
    logging: false,
    // Yoga's own body limit (25 MB unless set) tees the body through a counter as soon as a request is
    // parsed — beside streamed-upload.ts's reading of it, which cut an upload off at 25 MB, and it
    // refused any GraphQL import file past 25 MB (IMPORT_MAX_BYTES is 200 MiB). Every body is limited
    // before it: JSON at 100 KiB (http/json-body.ts), an upload's parts by streamed-upload.ts and its
    // file by startImport; no other body reaches Yoga (415).
    maxRequestBodySize: false,
    plugins: [
      // The REST routes' fixed documents execute compiled (compiled-documents.ts).
      useCompiledDocuments(),
      ...armor.protect().plugins,
      validationErrorsAsContractCode(opts.hideFieldSuggestions),
      csrfPrevention(),
      streamedUploads(opts.maxFieldBytes),
      malformedParamsAsValidation,
      useCostLimit(opts.maxCost),
      // Off in production unless GRAPHQL_INTROSPECTION=true: the schema lists every admin mutation.
      useDisableIntrospection({ isDisabled: () => !opts.introspection }),
      // Counts operations of both protocols, and names the operation for the request's log line.
      useOperationMetrics({
        metrics: opts.metrics,
        onOperation: (context, name) => {
          (context as RequestContext).observed.operationName ??= name;
        },
      }),
    ],
    // A GraphQL request's reads may go to a replica: its answers are never kept (REST's public reads
    // build their context themselves, rest/run.ts).
    context: ({ req, res }) => opts.contextFor(req, res, false),
    maskedErrors: {
      maskError: (error) => {
        // Coded errors keep their code, graphql-js' own errors (syntax, variable coercion) become
        // VALIDATION_FAILED; anything else is logged and shown as INTERNAL.
        const { error: found, unexpected } = toAppError(error);
        if (unexpected) opts.log.error({ err: error }, 'graphql resolver failed');
        // Variable coercion ("got invalid value … Did you mean …?") happens after validation.
        const coded =
          opts.hideFieldSuggestions && found.code === 'VALIDATION_FAILED' && / ?Did you mean /.test(found.message)
            ? new AppError(found.code, withoutSuggestions(found.message))
            : found;
        return error instanceof GraphQLError ? withCode(error, coded) : coded;
      },
    },
  });
}
