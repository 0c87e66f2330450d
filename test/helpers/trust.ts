/** Builders for the operator-trust tests (contract §10): API keys, one-time codes, audit entries. */
import { generate } from 'otplib';
import { expect } from 'vitest';
import type { AdminRole } from '../../src/auth/roles.ts';
import type { TestApp } from './test-app.ts';

/** Creates an API key over GraphQL as `ownerToken`; returns the key's id and its secret (shown once). */
export async function createApiKeyAs(
  app: TestApp,
  ownerToken: string,
  input: { name: string; role: AdminRole; expiresAt?: string },
): Promise<{ id: number; secret: string; prefix: string }> {
  const res = await app.graphql(
    'mutation ($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret apiKey { id prefix } } }',
    { input },
    { token: ownerToken },
  );
  expect(res.body.errors, res.text).toBeUndefined();
  const { secret, apiKey } = res.body.data.createApiKey;
  return { id: apiKey.id, prefix: apiKey.prefix, secret };
}

/** The TOTP code of `secret` at `epochSeconds` (default now), as an authenticator app shows it. */
export const totpCode = (secret: string, epochSeconds = Math.floor(Date.now() / 1000)): Promise<string> =>
  generate({ secret, epoch: epochSeconds });

/** The newest audit entries, as `auditLog` returns them (newest first). */
export async function auditEntries(app: TestApp, ownerToken: string, filter: Record<string, unknown> = {}) {
  const res = await app.graphql(
    `query ($action: String, $targetType: String, $targetId: Int, $actorType: String, $limit: Int) {
      auditLog(action: $action, targetType: $targetType, targetId: $targetId, actorType: $actorType, limit: $limit) {
        total entries { id at actor { type id name } action target { type id } changes requestId ip }
      }
    }`,
    { limit: 100, ...filter },
    { token: ownerToken },
  );
  expect(res.body.errors, res.text).toBeUndefined();
  return res.body.data.auditLog.entries as Array<{
    id: number;
    at: string;
    actor: { type: string; id: number | null; name: string | null };
    action: string;
    target: { type: string; id: number | null };
    changes: Record<string, [unknown, unknown]>;
    requestId: string;
    ip: string;
  }>;
}
