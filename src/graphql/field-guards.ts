/**
 * The guards of a field — who may call it (its declared scopes) and what its arguments must be (its
 * zod schemas) — and the one place that reads what Pothos keeps about them. Everything else (the
 * REST runner, the OpenAPI document) asks this module, so a Pothos upgrade that moves its private
 * data breaks here, where a test pins the shape (test/graphql/field-guards.test.ts), and nowhere else.
 *
 * The plugin checks a field's scopes BEFORE its arguments are validated: an anonymous caller never
 * learns a field's input rules (contract §5; Pothos would run the validation plugin's argument
 * mappers first). A REST route checks and validates before it executes — it must list every invalid
 * field with REST's names, where GraphQL's variable coercion stops at the first — and hands the
 * parsed arguments to the execution (`RequestContext.guarded`), so each happens once per request.
 */
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import type { GraphQLField, GraphQLFieldResolver, GraphQLInputType, GraphQLResolveInfo } from 'graphql';
import { getNamedType } from 'graphql';
import type { z } from 'zod';
import { declaredScopes, realmOfScope, requireScopes, rolesSentence, type Scope } from '../auth/scopes.ts';
import type { Realm } from '../errors/app-error.ts';
import type { GuardedArgs, RequestContext } from '../request-context.ts';

type ArgMapper = (args: Record<string, unknown>, ctx: unknown, info: unknown) => unknown;

/** What this module keeps on each built field, under its own key. */
interface Guards {
  scopes: Scope[];
  /** The validation plugin's argument mappers, as Pothos ran them before this plugin wrapped them. */
  mappers: ArgMapper[];
}

const GUARDS = 'shopGuards';

const isRoot = (info: GraphQLResolveInfo) => info.path.prev === undefined;

/** The arguments of this root field, if the request (a REST route) checked and validated them already. */
function takeGuarded(ctx: RequestContext, info: GraphQLResolveInfo): GuardedArgs | undefined {
  const guarded = ctx.guarded;
  if (!guarded || !isRoot(info) || guarded.field !== info.fieldName) return undefined;
  return guarded;
}

class FieldGuardsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  // Runs after the validation plugin's own onOutputFieldConfig (Pothos applies them last plugin first).
  override onOutputFieldConfig(fieldConfig: PothosOutputFieldConfig<Types>): PothosOutputFieldConfig<Types> {
    const scopes = declaredScopes((fieldConfig.pothosOptions as { authScopes?: unknown }).authScopes);
    const mappers = fieldConfig.argMappers as ArgMapper[];
    const guards: Guards = { scopes, mappers };
    // Each admin operation says who may call it (contract §10.1), from the one table of roles.
    const roles = rolesSentence(scopes);
    const description = [fieldConfig.description, roles].filter(Boolean).join('\n\n') || undefined;
    return {
      ...fieldConfig,
      description,
      extensions: { ...fieldConfig.extensions, [GUARDS]: guards },
      // Arguments a REST route validated already are not validated again.
      argMappers: mappers.map(
        (map) => (args: Record<string, unknown>, ctx: Types['Context'], info: GraphQLResolveInfo) =>
          takeGuarded(ctx as RequestContext, info)?.args ?? map(args, ctx, info),
      ) as PothosOutputFieldConfig<Types>['argMappers'],
    };
  }

  override wrapArgMappers(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    const scopes = declaredScopes((fieldConfig.pothosOptions as { authScopes?: unknown }).authScopes);
    if (scopes.length === 0) return resolver;
    return async (parent, args, ctx, info) => {
      // A REST route checked them before it validated (guardedExecution); once is enough.
      if (!takeGuarded(ctx as RequestContext, info)) await requireScopes(ctx as RequestContext, scopes);
      return resolver(parent, args, ctx, info);
    };
  }
}

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      fieldGuards: FieldGuardsPlugin<Types>;
    }
    // biome-ignore lint/correctness/noUnusedVariables: the parameters must match Pothos' declaration
    export interface FieldOptions<Types, ParentShape, Type, Nullable, Args, ResolveShape, ResolveReturnShape> {
      /**
       * Who may call the field (src/auth/scopes.ts): any one of the scopes set to true. Checked before
       * its arguments are validated; the coded 401/403 of contract §2 otherwise.
       */
      authScopes?: Partial<Record<Scope, true>>;
    }
  }
}

const pluginName = 'fieldGuards';
SchemaBuilder.registerPlugin(pluginName, FieldGuardsPlugin);
export default pluginName;

const guardsOf = (field: GraphQLField<unknown, unknown>): Guards =>
  ((field.extensions as Record<string, unknown>)[GUARDS] as Guards | undefined) ?? { scopes: [], mappers: [] };

/** The scopes a field declares (empty: anyone). */
export const scopesOf = (field: GraphQLField<unknown, unknown>): Scope[] => guardsOf(field).scopes;

/** The token system (`WWW-Authenticate` realm) of a field's scope, if it declares one. */
export function realmOf(field: GraphQLField<unknown, unknown>): Realm | undefined {
  const [scope] = scopesOf(field);
  return scope && realmOfScope(scope);
}

/** "Roles: owner, catalog_manager (…)." — who may call an admin field (contract §10.1), for the docs. */
export const rolesOf = (field: GraphQLField<unknown, unknown>): string | undefined => rolesSentence(scopesOf(field));

/** Throws the first scope's coded error unless the request satisfies one of the field's scopes. */
export const requireFieldScopes = (field: GraphQLField<unknown, unknown>, ctx: RequestContext) =>
  requireScopes(ctx, scopesOf(field));

/**
 * Validates a root field's arguments (its zod schemas, through the validation plugin's mappers) and
 * returns them parsed; throws VALIDATION_FAILED listing every problem. Call after its scopes.
 */
export async function validateFieldArgs(
  field: GraphQLField<unknown, unknown>,
  args: Record<string, unknown>,
  ctx: RequestContext,
): Promise<unknown> {
  let mapped: unknown = args;
  for (const map of guardsOf(field).mappers) mapped = await map(mapped as Record<string, unknown>, ctx, {});
  return mapped;
}

type ValidationExtensions = { '@pothos/plugin-validation'?: { schemas?: z.ZodType[]; parentSchemas?: z.ZodType[] } };

/** The zod schema an input type validates with (`.validate(schema)` on the type), if any. */
export function inputSchemaOf(type: GraphQLInputType): z.ZodType | undefined {
  return (getNamedType(type).extensions as ValidationExtensions)['@pothos/plugin-validation']?.schemas?.[0];
}

/** The zod schema of all of a field's arguments (`t.validate(args, schema)`), if any. */
export function argsSchemaOf(field: GraphQLField<unknown, unknown>): z.ZodType | undefined {
  return (field.args[0]?.extensions as ValidationExtensions | undefined)?.['@pothos/plugin-validation']
    ?.parentSchemas?.[0];
}
