/**
 * The query cost limit of contract §7.2, checked before anything runs. A document costs what
 * `@pothos/plugin-complexity` counts from the fields' own declarations — 1 per field, a page's rows
 * times its `limit` — plus, once per selection, the `onceCost` of fields whose work does not grow
 * with the page they sit under: facets aggregate over every match whatever the page size, so under
 * Pothos' rule alone they would cost `limit` times too much on a large page and almost nothing on
 * `items(limit: 1)` (15 aliased `items(limit: 1) { facets }` passed while each ran for seconds).
 *
 * REST's own documents (compiled-documents.ts) are never refused: their routes bound what they ask.
 */
import { complexityFromQuery } from '@pothos/plugin-complexity';
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  getOperationAST,
  isInterfaceType,
  isObjectType,
  Kind,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../errors/app-error.ts';
import { isCompiled } from './compiled-documents.ts';

/** A field's extension: what each selection of it costs, not multiplied by the page sizes above it. */
export const ONCE_COST = 'onceCost';

/** The `onceCost` of every field selected under `selectionSet`, each selection counted (fragments too). */
function onceCosts(
  schema: GraphQLSchema,
  selectionSet: SelectionSetNode,
  type: GraphQLNamedType,
  fragments: Map<string, FragmentDefinitionNode>,
  byFragment: Map<string, number>,
): number {
  let cost = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      const field = isObjectType(type) || isInterfaceType(type) ? type.getFields()[selection.name.value] : undefined;
      if (!field) continue; // __typename and the like
      const own = field.extensions[ONCE_COST];
      if (typeof own === 'number') cost += own;
      if (selection.selectionSet)
        cost += onceCosts(schema, selection.selectionSet, getNamedType(field.type), fragments, byFragment);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const on = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type;
      if (on) cost += onceCosts(schema, selection.selectionSet, on, fragments, byFragment);
    } else {
      const name = selection.name.value;
      // A fragment's cost does not depend on where it is spread: counted once per name, added per spread.
      let known = byFragment.get(name);
      if (known === undefined) {
        const fragment = fragments.get(name);
        const on = fragment && schema.getType(fragment.typeCondition.name.value);
        known = fragment && on ? onceCosts(schema, fragment.selectionSet, on, fragments, byFragment) : 0;
        byFragment.set(name, known);
      }
      cost += known;
    }
  }
  return cost;
}

/** What the operation `operationName` of `document` costs with `variables`; undefined when it cannot be priced. */
export function documentCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown>,
  ctx: object,
): number | undefined {
  const operation = getOperationAST(document, operationName);
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root) return undefined;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  let fields: number;
  try {
    // Pothos prices the first operation of a document: hand it the one that runs.
    const one: DocumentNode = { kind: Kind.DOCUMENT, definitions: [operation, ...fragments.values()] };
    fields = complexityFromQuery(one, { schema, variables, ctx }).complexity;
  } catch {
    // Variables that do not coerce: the execution refuses them with its own coded error.
    return undefined;
  }
  return fields + onceCosts(schema, operation.selectionSet, root, fragments, new Map());
}

/** The envelop plugin: a GraphQL client's document over `maxCost` → VALIDATION_FAILED, nothing run. */
export const useCostLimit = (maxCost: number): Plugin => ({
  onExecute({ args, setResultAndStopExecution }) {
    if (isCompiled(args.document)) return;
    const cost = documentCost(
      args.schema,
      args.document,
      args.operationName,
      args.variableValues ?? {},
      args.contextValue as object,
    );
    if (cost === undefined || cost <= maxCost) return;
    const coded = new AppError(
      'VALIDATION_FAILED',
      `The query would cost ${cost}, over the limit of ${maxCost}: ask for fewer items (a list costs its page size ` +
        'times the fields selected per item; facets and spec filters cost more, as they count over every match) or ' +
        'split the query.',
    );
    setResultAndStopExecution({ errors: [coded] });
  },
});
