/**
 * A rendered read (RestRoute.render) whose answer Node makes from a service's plain objects, without
 * GraphQL's execution: for a root field that is a list of objects, each a flat selection of fields
 * exposed as they are (Pothos `expose*`: the object's property of the same name, a scalar or enum that
 * serialises as itself). test/catalog/rendered-reads.test.ts holds such an answer equal to the same
 * document executed by GraphQL.
 */
import { type FieldNode, Kind } from 'graphql';
import type { RequestContext } from '../request-context.ts';
import type { Renderer } from './route.ts';

/** The renderer of the root field's list from `read`'s objects, projected by the field's selection. */
export function plainListRenderer<T extends object>(
  read: (ctx: RequestContext, args: unknown) => Promise<readonly T[]>,
): (selection: FieldNode) => Renderer {
  return (selection) => {
    const picks = (selection.selectionSet?.selections ?? []).map((s) => {
      if (s.kind !== Kind.FIELD || s.selectionSet || s.directives?.length || s.arguments?.length)
        throw new Error('only plain scalar fields can be rendered from plain objects');
      return [s.alias?.value ?? s.name.value, s.name.value as keyof T] as const;
    });
    if (picks.length === 0) throw new Error('a rendered list selects fields');
    const keys = picks.map(([as]) => as);
    const names = picks.map(([, name]) => name);
    return async (ctx, args) => {
      const rows = await read(ctx, args);
      // Indexed loops: an answer projects every row on every request.
      const projected = new Array<Record<string, unknown>>(rows.length);
      for (let r = 0; r < rows.length; r++) {
        const row = rows[r]!;
        const out: Record<string, unknown> = {};
        for (let k = 0; k < keys.length; k++) out[keys[k]!] = row[names[k]!];
        projected[r] = out;
      }
      return JSON.stringify(projected);
    };
  };
}
