/**
 * Contract §10.5: API keys — created by an owner with a role (never owner), the secret shown once and
 * stored as a hash, used as `Authorization: Bearer shk_…` on GraphQL and /admin/api/*, revoked,
 * expired, and never a customer.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, gqlCode, loginAsAdmin, makeAdmin } from '../helpers/accounts.ts';
import { itemBody, postItem } from '../helpers/catalog-admin.ts';
import { cliOn } from '../helpers/cli.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { auditEntries, createApiKeyAs } from '../helpers/trust.ts';

let app: TestApp;
let owner: string;
let categoryId: number;

beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
  owner = await loginAsAdmin(app);
  categoryId = (await app.db.prisma.category.create({ data: { name: 'Key shelf' } })).id;
});
afterAll(() => app.close());

const CREATE =
  'mutation ($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret apiKey { id name role prefix createdAt expiresAt lastUsedAt } } }';

describe('creating a key', () => {
  it('when an owner creates one, then the secret is `shk_` + prefix + 32 random bytes, shown once, stored only as a hash', async () => {
    const res = await app.graphql(CREATE, { input: { name: 'ERP', role: 'catalog_manager' } }, { token: owner });
    const { secret, apiKey } = res.body.data.createApiKey;
    expect(secret).toMatch(new RegExp(`^shk_${apiKey.prefix}[A-Za-z0-9_-]{43}$`));
    expect(apiKey).toMatchObject({ name: 'ERP', role: 'catalog_manager', expiresAt: null, lastUsedAt: null });
    const stored = await app.db.prisma.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } });
    expect(stored.secretHash).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(secret.slice(12));
    const list = await app.graphql('{ apiKeys { id prefix } }', {}, { token: owner });
    expect(JSON.stringify(list.body)).not.toContain(secret.slice(12));
    expect(list.body.data.apiKeys[0]).toEqual({ id: apiKey.id, prefix: apiKey.prefix });
  });

  it('when the role is owner, the name blank or the expiry past, then VALIDATION_FAILED names each', async () => {
    const res = await app.graphql(
      CREATE,
      { input: { name: ' ', role: 'owner', expiresAt: '2001-01-01T00:00:00.000Z' } },
      { token: owner },
    );
    expect(gqlCode(res)).toBe('VALIDATION_FAILED');
    expect(res.body.errors[0].extensions.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'expiresAt',
      'name',
      'role',
    ]);
  });
});

describe('using a key', () => {
  it('when a catalog_manager key writes over REST and GraphQL, then it acts with its role, is audited by name, and lastUsedAt moves', async () => {
    const key = await createApiKeyAs(app, owner, { name: 'ERP writer', role: 'catalog_manager' });
    const created = await postItem(app, key.secret, itemBody(categoryId, { name: 'Synced boot' }));
    expect(created.status, created.text).toBe(201);
    const [entry] = await auditEntries(app, owner, { action: 'item.create', targetId: created.body.id });
    expect(entry!.actor).toEqual({ type: 'api_key', id: key.id, name: 'ERP writer' });
    expect(gqlCode(await app.graphql('{ customers { total } }', {}, { token: key.secret }))).toBe('FORBIDDEN');
    expect(gqlCode(await app.graphql('{ adminMe { id } }', {}, { token: key.secret }))).toBe('FORBIDDEN');
    const stored = await app.db.prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } });
    expect(stored.lastUsedAt).not.toBeNull();
  });

  it('when a key retries an Idempotency-Key, then it replays its own item; an admin with the same key gets a new one', async () => {
    const key = await createApiKeyAs(app, owner, { name: 'ERP retry', role: 'catalog_manager' });
    const body = itemBody(categoryId, { name: 'Once boot' });
    const first = await postItem(app, key.secret, body, { 'idempotency-key': 'erp-42' });
    const retry = await postItem(app, key.secret, body, { 'idempotency-key': 'erp-42' });
    expect(retry.body.id).toBe(first.body.id);
    const byAdmin = await postItem(app, owner, body, { 'idempotency-key': 'erp-42' });
    expect(byAdmin.body.id).not.toBe(first.body.id);
  });

  it('when a key is revoked or has expired, then TOKEN_REVOKED / TOKEN_EXPIRED; an unknown or malformed one TOKEN_INVALID', async () => {
    const key = await createApiKeyAs(app, owner, { name: 'ERP old', role: 'viewer' });
    expect(gqlCode(await app.graphql('{ synonymGroups { id } }', {}, { token: key.secret }))).toBeUndefined();
    const revoke = await app.graphql(
      'mutation ($id: Int!) { revokeApiKey(id: $id) }',
      { id: key.id },
      { token: owner },
    );
    expect(revoke.body.data.revokeApiKey).toBe(true);
    const revoked = await postItem(app, key.secret, itemBody(categoryId));
    expectProblem(revoked, 401, 'TOKEN_REVOKED');
    expect(revoked.headers.get('www-authenticate')).toBe('Bearer realm="admin", error="invalid_token"');

    const soon = await createApiKeyAs(app, owner, {
      name: 'ERP trial',
      role: 'viewer',
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    await app.db.prisma.apiKey.update({ where: { id: soon.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(gqlCode(await app.graphql('{ synonymGroups { id } }', {}, { token: soon.secret }))).toBe('TOKEN_EXPIRED');

    const wrongSecret = `${key.secret.slice(0, 12)}${'A'.repeat(43)}`;
    for (const token of [wrongSecret, 'shk_short', `shk_zzzzzzzz${'A'.repeat(43)}`]) {
      expect(gqlCode(await app.graphql('{ synonymGroups { id } }', {}, { token })), token).toBe('TOKEN_INVALID');
    }
  });

  it('when the admin who created a key is disabled, then the key answers 401 TOKEN_REVOKED until they are enabled again; apiKeys names the creator', async () => {
    const creator = await makeAdmin(app, { username: 'key-maker', password: 'key-maker-password' });
    const creatorToken = await loginAsAdmin(app, { username: 'key-maker', password: 'key-maker-password' });
    const key = await createApiKeyAs(app, creatorToken, { name: 'ERP of a leaver', role: 'catalog_manager' });
    const listed = await app.graphql('{ apiKeys { id createdBy { id username } } }', {}, { token: owner });
    expect(listed.body.data.apiKeys.find((k: { id: number }) => k.id === key.id).createdBy).toEqual({
      id: creator.id,
      username: 'key-maker',
    });

    const setDisabled = (disabled: boolean) =>
      app.graphql(
        'mutation ($id: Int!, $d: Boolean!) { setAdminDisabled(id: $id, disabled: $d) { id } }',
        {
          id: creator.id,
          d: disabled,
        },
        { token: owner },
      );
    expect((await setDisabled(true)).body.errors).toBeUndefined();
    const refused = await postItem(app, key.secret, itemBody(categoryId));
    expectProblem(refused, 401, 'TOKEN_REVOKED');
    expect(refused.body.detail).toMatch(/created this API key is disabled/);
    expect(gqlCode(await app.graphql('{ synonymGroups { id } }', {}, { token: key.secret }))).toBe('TOKEN_REVOKED');

    expect((await setDisabled(false)).body.errors).toBeUndefined();
    expect((await postItem(app, key.secret, itemBody(categoryId))).status).toBe(201);
  });

  it('when a key is sent to a customer route, then it is a token of the other system: 401 TOKEN_INVALID, realm customer', async () => {
    const key = await createApiKeyAs(app, owner, { name: 'ERP lost', role: 'support' });
    const res = await app.request('/api/v1/me', { token: key.secret });
    expectProblem(res, 401, 'TOKEN_INVALID');
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="customer", error="invalid_token"');
    expect(gqlCode(await app.graphql('{ me { id } }', {}, { token: key.secret }))).toBe('TOKEN_INVALID');
  });
});

describe('the CLI', () => {
  it('when list-api-keys and revoke-api-key run, then keys are listed without secrets and revoked by prefix, audited as cli', async () => {
    const key = await createApiKeyAs(app, owner, { name: 'CLI listed', role: 'viewer' });
    const list = await cliOn(app, ['list-api-keys']);
    expect(list.stdout).toMatch(/^id\s+prefix\s+name\s+role\s+status/);
    expect(list.stdout).toMatch(new RegExp(`${key.prefix}\\s+CLI listed\\s+viewer\\s+active`));
    expect(list.stdout).not.toContain(key.secret.slice(12));
    expect((await cliOn(app, ['revoke-api-key', key.prefix])).code).toBe(0);
    expect((await cliOn(app, ['list-api-keys'])).stdout).toMatch(
      new RegExp(`${key.prefix}\\s+CLI listed\\s+viewer\\s+revoked`),
    );
    expect((await cliOn(app, ['revoke-api-key', 'nosuchke'])).code).toBe(1);
    const [entry] = await auditEntries(app, owner, { action: 'api_key.revoke', targetId: key.id });
    expect(entry!.actor.type).toBe('cli');
  });
});
