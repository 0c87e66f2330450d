/**
 * An envelop plugin that counts every executed GraphQL operation by name and type, and every
 * RATE_LIMITED it answers with. It sits in Yoga's pipeline, which POST /graphql and the REST routes
 * (http/rest-route.ts, through `getEnveloped`) both run, so each operation is counted here once,
 * whichever protocol carried it.
 */
import { type DocumentNode, type GraphQLError, getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Metrics } from './metrics.ts';

/**
 * Operation names are chosen by clients: past this many distinct ones, further names are counted as
 * `(other)`, so a client inventing names cannot grow the metrics (and the scrape) without bound.
 */
export const MAX_OPERATION_NAMES = 200;
const MAX_NAME_LENGTH = 64;

export interface OperationMetricsOptions {
  metrics: Pick<Metrics, 'graphqlOperations' | 'rateLimited'>;
  /** Told the operation's name (as sent, `(anonymous)` when it has none) before it executes. */
  onOperation?: (context: unknown, name: string) => void;
}

export function useOperationMetrics(opts: OperationMetricsOptions): Plugin {
  const known = new Set<string>();
  const label = (name: string) => {
    if (known.has(name)) return name;
    if (known.size >= MAX_OPERATION_NAMES) return '(other)';
    known.add(name);
    return name;
  };
  return {
    onExecute({ args }) {
      const op = getOperationAST(args.document as DocumentNode, args.operationName ?? undefined);
      const name = (op?.name?.value ?? '(anonymous)').slice(0, MAX_NAME_LENGTH);
      const operation = label(name);
      opts.metrics.graphqlOperations.inc({ operation, type: op?.operation ?? 'unknown' });
      opts.onOperation?.(args.contextValue, name);
      return {
        onExecuteDone({ result }) {
          if (!('errors' in result)) return;
          const errors = (result.errors ?? []) as readonly GraphQLError[];
          if (errors.some((e) => e.extensions?.code === 'RATE_LIMITED')) opts.metrics.rateLimited.inc({ operation });
        },
      };
    },
  };
}
