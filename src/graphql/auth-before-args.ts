/**
 * A Pothos plugin that checks a field's declared scope before its arguments are validated. Pothos
 * runs argument mappers (the validation plugin) outside every plugin's resolver wrapper, so without
 * this an anonymous caller would learn a field's input rules (VALIDATION_FAILED) before being told
 * it may not call it; contract §5 and the REST adapters answer who-may-ask first. The scope-auth
 * plugin still runs its own check afterwards (the principal is cached, so it costs nothing).
 */
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import type { GraphQLFieldResolver } from 'graphql';
import { declaredScopes, requireScopes } from '../auth/scopes.ts';
import type { RequestContext } from '../request-context.ts';

class AuthBeforeArgsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapArgMappers(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    const scopes = declaredScopes((fieldConfig.pothosOptions as { authScopes?: unknown }).authScopes);
    if (scopes.length === 0) return resolver;
    return async (parent, args, ctx, info) => {
      await requireScopes(ctx as unknown as RequestContext, scopes);
      return resolver(parent, args, ctx, info);
    };
  }
}

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      authBeforeArgs: AuthBeforeArgsPlugin<Types>;
    }
  }
}

const pluginName = 'authBeforeArgs';
SchemaBuilder.registerPlugin(pluginName, AuthBeforeArgsPlugin);
export default pluginName;
