/** API keys for integrations (contract §10.5), the owner's alone. */
import type { ApiKey } from '../generated/prisma/client.ts';
import { builder } from '../graphql/builder.ts';
import { AdminRoleType, AdminType } from './accounts.graphql.ts';
import { accountIdInput } from './accounts.schema.ts';
import { createApiKeyInput } from './api-keys.schema.ts';
import { apiKeyCreator, type CreatedApiKey, createApiKey, listApiKeys, revokeApiKey } from './api-keys.service.ts';

const ApiKeyType = builder.objectRef<ApiKey>('ApiKey').implement({
  description: 'A key an integration sends as `Authorization: Bearer shk_…`; it acts with its role.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    role: t.expose('role', { type: AdminRoleType }),
    prefix: t.exposeString('prefix', { description: 'The characters after `shk_` that identify the key.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true, description: 'At most a minute old.' }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    createdBy: t.field({
      type: AdminType,
      nullable: true,
      description:
        'The admin who created the key (null: made before this was recorded). While they are disabled the key answers TOKEN_REVOKED.',
      resolve: (key, _args, ctx) => apiKeyCreator(ctx, key),
    }),
  }),
});

const CreatedApiKeyType = builder.objectRef<CreatedApiKey>('CreatedApiKey').implement({
  fields: (t) => ({
    apiKey: t.field({ type: ApiKeyType, resolve: (c) => c.apiKey }),
    secret: t.exposeString('secret', { description: 'The key itself (`shk_…`): shown this once, never again.' }),
  }),
});

const CreateApiKeyInput = builder
  .inputType('CreateApiKeyInput', {
    fields: (t) => ({
      name: t.string({ required: true, description: '1..100 characters, e.g. the integration.' }),
      role: t.field({ type: AdminRoleType, required: true, description: 'Any role but `owner`.' }),
      expiresAt: t.field({ type: 'DateTime', description: 'In the future; none: the key lasts until revoked.' }),
    }),
  })
  .validate(createApiKeyInput);

builder.queryField('apiKeys', (t) =>
  t.field({
    type: [ApiKeyType],
    description: 'Every API key, newest first (revoked ones too).',
    authScopes: { owner: true },
    resolve: (_root, _args, ctx) => listApiKeys(ctx),
  }),
);

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedApiKeyType,
    description: 'Creates an API key; its secret is in the answer and nowhere else.',
    authScopes: { owner: true },
    args: { input: t.arg({ type: CreateApiKeyInput, required: true }) },
    resolve: (_root, args, ctx) => createApiKey(ctx, args.input),
  }),
  revokeApiKey: t.boolean({
    description: 'Revokes an API key: from then on it answers TOKEN_REVOKED.',
    authScopes: { owner: true },
    args: t.validate({ id: t.arg.int({ required: true }) }, accountIdInput),
    resolve: (_root, args, ctx) => revokeApiKey(ctx, args.id),
  }),
}));
