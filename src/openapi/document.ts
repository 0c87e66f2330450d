/**
 * The OpenAPI 3.1 document, generated from the REST route table: paths and methods from the rows,
 * parameters and request bodies from the zod input schemas (openapi-inputs.ts), response bodies from
 * the GraphQL selection each row runs, as named schemas (openapi-schemas.ts), and one error response
 * per status with an example per contract code (openapi-problems.ts). It cannot drift from the
 * routes because it is made of them: a new row is documented as it is added. A route outside the table
 * (a streamed file) comes with a description of its own (described-route.ts).
 */
import { type GraphQLSchema, Kind, type OperationDefinitionNode } from 'graphql';
import type { CompiledRoute } from '../rest/route.ts';
import { type DescribedRoute, describedOperation } from './described-route.ts';
import { parametersOf, requestBodyOf, validationSchemaOf } from './inputs.ts';
import { problemResponses, problemSchema } from './problems.ts';
import { SchemaNamer } from './schemas.ts';

type JsonSchema = Record<string, unknown>;

function operationOf(route: CompiledRoute, schema: GraphQLSchema, namer: SchemaNamer): JsonSchema {
  const op = route.compiled.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  )!;
  const root = (op.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType())!;
  // `RestWxLogin` → `WxLogin`: names a shape that only this route answers with.
  const where = route.operationName.replace(/^Rest/, '');
  const body = route.bodyIsData
    ? namer.object(root, op.selectionSet, { where, atTop: true })
    : namer.output(route.field.type, route.fieldNode.selectionSet, where, true);
  const input = validationSchemaOf(route);
  const parameters = parametersOf(route, input);
  const requestBody = requestBodyOf(route, input);
  const status = route.status ?? 200;
  const success = {
    description: route.example?.description ?? (status === 204 ? 'Done (no body)' : 'Success'),
    ...(route.successHeaders ? { headers: route.successHeaders } : {}),
    // 204 has no body (RFC 9110 §15.3.5), whatever the operation's value.
    ...(status === 204
      ? {}
      : { content: { 'application/json': { schema: (body.anyOf as JsonSchema[] | undefined)?.[0] ?? body } } }),
  };
  const needs = route.needsConfiguration;
  const description = [
    route.roles,
    needs &&
      `Needs ${needs.join(' and ')} set on the server: without them this answers 503 ` +
        '(see its example), also when "Try it out" sends the example below.',
  ].filter(Boolean);
  return {
    summary: route.summary,
    ...(description.length ? { description: description.join('\n\n') } : {}),
    ...(needs ? { 'x-needs-configuration': needs } : {}),
    ...(route.example?.answers ? { 'x-example-answers': route.example.answers } : {}),
    tags: [route.tag],
    operationId: route.operationName,
    ...(route.realm ? { security: [{ [`${route.realm}Token`]: [] }] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: { [String(status)]: success, ...problemResponses(route, input) },
  };
}

/** `/admin/api/items/:id` → `/admin/api/items/{id}`. */
const pathTemplate = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/**
 * The document of the route table's `routes` and of the routes outside it, `described` by hand (a
 * streamed file: described-route.ts).
 */
export function buildOpenApiDocument(
  schema: GraphQLSchema,
  routes: CompiledRoute[],
  described: DescribedRoute[] = [],
): JsonSchema {
  const namer = new SchemaNamer();
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    (paths[pathTemplate(route.path)] ??= {})[route.method.toLowerCase()] = operationOf(route, schema, namer);
  }
  for (const route of described) {
    (paths[pathTemplate(route.path)] ??= {})[route.method.toLowerCase()] = describedOperation(route, routes);
  }
  const { schemas, resolve } = namer.finish();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Shop API',
      version: '1.0.0',
      description:
        'REST adapters of the shop service. Every route runs the same GraphQL resolver as POST /graphql. ' +
        'Errors are RFC 9457 problem+json with a `code` (see the Problem schema); every response carries X-Request-Id. ' +
        "The request examples work as they stand on a development server after the README's quick tour " +
        "(its admin and customer); the sign-up example's username is a placeholder to change before each run, " +
        'and a route that needs server settings says so.',
    },
    paths: resolve(paths),
    components: {
      securitySchemes: {
        customerToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'Customer access token (typ customer+jwt), from POST /api/v1/auth/login or wx-login.',
        },
        adminToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'Admin access token (typ admin+jwt), from POST /admin/api/auth/login — or an API key (`shk_…`, contract ' +
            "§10.5), which acts with its own role. Each admin route's description names the roles it needs.",
        },
      },
      schemas: { ...schemas, Problem: problemSchema },
    },
  };
}
