/**
 * An envelop plugin that counts every executed GraphQL operation, and every RATE_LIMITED it answers
 * with. It sits in Yoga's pipeline, which POST /graphql and the REST routes (http/rest-route.ts,
 * through `getEnveloped`) both run, so each operation is counted here once, whichever protocol carried it.
 *
 * Labels come from the schema, never from the client: the operation's type and each root field it
 * runs (`items`, `createItem`, `__schema`). Operation names are the client's choice — 600 invented
 * ones would fill any set of label slots for good — so they go to the request's log line only.
 */
import { type DocumentNode, type GraphQLError, getOperationAST, Kind, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { type CounterSeries, counterSeries } from './metric-series.ts';
import type { Metrics } from './metrics.ts';

const MAX_NAME_LENGTH = 64;

export interface OperationMetricsOptions {
  metrics: Pick<Metrics, 'graphqlOperations' | 'rateLimited'>;
  /** Told the operation's name (as sent, `(anonymous)` when it has none) before it executes, for the log line. */
  onOperation?: (context: unknown, name: string) => void;
}

/**
 * The schema fields an operation selects at its root (aliases resolved; fragments followed). Only
 * validated documents execute, so every name is a field of the schema.
 */
function rootFields(op: OperationDefinitionNode, document: DocumentNode): string[] {
  const fragments = new Map(
    document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])),
  );
  const fields = new Set<string>();
  const seen = new Set<string>();
  const walk = (selections: OperationDefinitionNode['selectionSet']['selections']) => {
    for (const s of selections) {
      if (s.kind === Kind.FIELD) {
        if (s.name.value !== '__typename') fields.add(s.name.value);
      } else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet.selections);
      else if (!seen.has(s.name.value)) {
        seen.add(s.name.value);
        const fragment = fragments.get(s.name.value);
        if (fragment) walk(fragment.selectionSet.selections);
      }
    }
  };
  walk(op.selectionSet.selections);
  return [...fields].sort();
}

/**
 * Counts `op` of `document` as executed, once per root field it runs. The plugin below calls it for
 * every execution; the REST runner for a read whose answer PostgreSQL rendered without one (rest/run.ts).
 */
export function countOperation(
  metrics: Pick<Metrics, 'graphqlOperations'>,
  op: OperationDefinitionNode,
  document: DocumentNode,
): void {
  // Parsed documents are kept and reused (the REST routes', Yoga's parse cache): each is walked once,
  // and its root fields' series found once (observability/metric-series.ts).
  let byOperation = seriesOf.get(metrics.graphqlOperations);
  if (!byOperation) seriesOf.set(metrics.graphqlOperations, (byOperation = new WeakMap()));
  let series = byOperation.get(op);
  if (!series) {
    series = rootFields(op, document).map((field) =>
      counterSeries(metrics.graphqlOperations, { field, type: op.operation }),
    );
    byOperation.set(op, series);
  }
  for (const field of series) field.inc();
}

/** Per counter (each app has its own metrics), each operation's root-field series. */
const seriesOf = new WeakMap<object, WeakMap<OperationDefinitionNode, CounterSeries[]>>();

export function useOperationMetrics(opts: OperationMetricsOptions): Plugin {
  return {
    onExecute({ args }) {
      const document = args.document as DocumentNode;
      const op = getOperationAST(document, args.operationName ?? undefined);
      opts.onOperation?.(args.contextValue, (op?.name?.value ?? '(anonymous)').slice(0, MAX_NAME_LENGTH));
      if (!op) return;
      countOperation(opts.metrics, op, document);
      return {
        onExecuteDone({ result }) {
          if (!('errors' in result)) return;
          const errors = (result.errors ?? []) as readonly GraphQLError[];
          // Counted on the root field whose resolver refused (the error's path starts with its alias).
          for (const error of errors) {
            if (error.extensions?.code !== 'RATE_LIMITED') continue;
            const alias = error.path?.[0];
            const node = op.selectionSet.selections.find(
              (s) => s.kind === Kind.FIELD && (s.alias?.value ?? s.name.value) === alias,
            );
            opts.metrics.rateLimited.inc({ field: node?.kind === Kind.FIELD ? node.name.value : '(unknown)' });
          }
        },
      };
    },
  };
}
