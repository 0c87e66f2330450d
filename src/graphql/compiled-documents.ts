/**
 * The REST routes' operations (rest/route.ts) run compiled: graphql-jit turns each fixed document into
 * a JavaScript function once, which then calls the same resolvers, plugins and error masking as
 * graphql-js would, without graphql-js' per-request walk of the selection (field collection, the
 * completion of every value by its type) — on the storefront's small reads the larger part of the CPU
 * the execution costs. Only these documents: a GraphQL client's documents are its own and unbounded
 * (a compilation costs milliseconds), so POST /graphql executes with graphql-js as always.
 *
 * The variables are coerced by graphql-js first: a request whose variables it would refuse is
 * executed by graphql-js, which answers it with its own coded errors (graphql-jit words its own).
 */
import { useGraphQlJit } from '@envelop/graphql-jit';
import {
  type DocumentNode,
  type GraphQLSchema,
  getOperationAST,
  getVariableValues,
  type OperationDefinitionNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';

const compiled = new WeakMap<DocumentNode, OperationDefinitionNode>();

/** Marks a fixed document (a REST route's) to be executed compiled. */
export function executeCompiled(document: DocumentNode): void {
  const op = getOperationAST(document);
  if (op) compiled.set(document, op);
}

/** True for a REST route's fixed document (marked by `executeCompiled`). */
export const isCompiled = (document: DocumentNode): boolean => compiled.has(document);

interface ExecuteArgs {
  schema: GraphQLSchema;
  document: DocumentNode;
  variableValues?: Record<string, unknown> | null;
}

/** The envelop plugin: compiled execution for the marked documents whose variables coerce. */
export const useCompiledDocuments = (): Plugin =>
  useGraphQlJit(
    {},
    {
      enableIf: (args: ExecuteArgs) => {
        const op = compiled.get(args.document);
        if (!op) return false;
        const coerced = getVariableValues(args.schema, op.variableDefinitions ?? [], args.variableValues ?? {});
        return coerced.errors === undefined;
      },
    },
  ) as Plugin;
