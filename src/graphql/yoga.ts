/**
 * The GraphQL endpoint: graphql-yoga over the Pothos schema, hardened with graphql-armor
 * (depth, aliases, cost, tokens, no field suggestions) and with error masking left on.
 */
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import type { Request, Response } from 'express';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { AppError, type ErrorCode } from '../errors/app-error.ts';
import { toAppError } from '../errors/to-app-error.ts';
import type { Logger } from '../logger.ts';
import type { Context } from './context.ts';

interface ServerContext {
  req: Request;
  res: Response;
}

export interface YogaOptions {
  schema: GraphQLSchema;
  graphiql: boolean;
  log: Logger;
  contextFor: (req: Request, res: Response) => Context;
}

/** A copy of `error` (location, path, extensions kept) carrying a contract code. */
function withCode(error: GraphQLError, code: ErrorCode, message = error.message, extensions = error.extensions) {
  return new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { ...extensions, code },
  });
}

/** Documents that fail validation (unknown fields, armor limits) are the client's invalid input. */
const validationErrorsAsContractCode: Plugin = {
  onValidate:
    () =>
    ({ result, setResult }) => {
      if (result.length) setResult(result.map((e) => withCode(e, 'VALIDATION_FAILED')));
    },
};

export function createGraphQLServer(opts: YogaOptions): YogaServerInstance<ServerContext, Context> {
  const armor = new EnvelopArmor({
    maxDepth: { n: 8 },
    maxAliases: { n: 15 },
    costLimit: { maxCost: 5000 },
    maxTokens: { n: 2000 },
    blockFieldSuggestion: { enabled: true },
  });
  return createYoga<ServerContext, Context>({
    schema: opts.schema,
    graphqlEndpoint: '/graphql',
    graphiql: opts.graphiql ? { title: 'Shop API' } : false,
    // The self-contained GraphiQL (no CDN), loaded on first use: it is 9 MB we need not parse at start.
    renderGraphiQL: async (options) => (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(options),
    landingPage: false,
    logging: false,
    plugins: [...armor.protect().plugins, validationErrorsAsContractCode],
    context: ({ req, res }) => opts.contextFor(req, res),
    maskedErrors: {
      maskError: (error) => {
        // Coded errors keep their code, graphql-js' own errors (syntax, variable coercion) become
        // VALIDATION_FAILED; anything else is logged and shown as INTERNAL.
        const { error: coded, unexpected } = toAppError(error);
        if (unexpected) opts.log.error({ err: error }, 'graphql resolver failed');
        return error instanceof GraphQLError ? withCode(error, coded.code, coded.message, coded.extensions) : coded;
      },
    },
  });
}
