/**
 * API keys for integrations (contract §10.5): an owner creates one with a role (never `owner`) and
 * sees its secret once; only the secret's hash is stored (auth/api-key-secret.ts); revoking is final.
 * Request authentication with a key lives in auth/request-auth.ts.
 */
import { adminWrite } from '../audit/admin-write.ts';
import { changesBetween } from '../audit/audit-log.ts';
import { newApiKeySecret } from '../auth/api-key-secret.ts';
import { notFound, validationFailed } from '../errors/app-error.ts';
import type { Admin, ApiKey } from '../generated/prisma/client.ts';
import type { RequestContext } from '../request-context.ts';
import type { CreateApiKeyInput } from './api-keys.schema.ts';

export interface CreatedApiKey {
  apiKey: ApiKey;
  /** `shk_…`: shown once, never stored. */
  secret: string;
}

export async function createApiKey(
  ctx: RequestContext,
  { name, role, expiresAt }: CreateApiKeyInput,
): Promise<CreatedApiKey> {
  const { secret, prefix, hash } = newApiKeySecret();
  const createdById = await ctx.auth.actingAdminId();
  const apiKey = await adminWrite(ctx, async (tx, audit) => {
    const key = await tx.apiKey.create({
      data: { name, role, prefix, secretHash: hash, expiresAt: expiresAt ?? null, createdById: createdById ?? null },
    });
    audit({
      action: 'api_key.create',
      target: { type: 'api_key', id: key.id },
      changes: changesBetween(null, { name, role, prefix, expiresAt: key.expiresAt, secret: true }),
    });
    return key;
  });
  return { apiKey, secret };
}

/** Every key, newest first (revoked and expired ones too: an owner sees what existed). */
export function listApiKeys(ctx: RequestContext): Promise<ApiKey[]> {
  return ctx.db.prisma.apiKey.findMany({ orderBy: { id: 'desc' } });
}

/** The admin who created `key`, if recorded (an owner's list of a handful of keys: one read each). */
export function apiKeyCreator(ctx: RequestContext, key: ApiKey): Promise<Admin | null> | null {
  return key.createdById === null ? null : ctx.db.prisma.admin.findUnique({ where: { id: key.createdById } });
}

/** Revokes a key: from then on it answers TOKEN_REVOKED. NOT_FOUND when there is none. */
export function revokeApiKey(ctx: RequestContext, id: number): Promise<true> {
  return adminWrite(ctx, async (tx, audit) => {
    const key = await tx.apiKey.findUnique({ where: { id }, select: { revokedAt: true } });
    if (!key) throw notFound('API key');
    if (key.revokedAt) throw validationFailed([{ field: 'id', message: 'is already revoked' }]);
    const revokedAt = new Date();
    await tx.apiKey.update({ where: { id }, data: { revokedAt } });
    audit({
      action: 'api_key.revoke',
      target: { type: 'api_key', id },
      changes: { revokedAt: [null, revokedAt.toISOString()] },
    });
    return true as const;
  });
}

/** The id of the key with this prefix (the CLI names keys by prefix, as `list-api-keys` shows them). */
export async function apiKeyIdByPrefix(ctx: RequestContext, prefix: string): Promise<number> {
  const key = await ctx.db.prisma.apiKey.findUnique({ where: { prefix }, select: { id: true } });
  if (!key) throw notFound('API key');
  return key.id;
}
