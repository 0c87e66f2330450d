/** Input rules of two-factor login, sessions and per-account admin operations (contract §10.3, §10.4). */
import { z } from 'zod';
import { rule, text } from '../validation/rules.ts';
import { accountId } from './accounts.schema.ts';

/** A one-time code or a recovery code as typed (checked against the secret by the service). */
export const totpCodeInput = z.object({
  code: text().trim().min(1, rule('is required')).max(64, rule('must be at most 64 characters')),
});

export const adminIdInput = z.object({ adminId: accountId });
export const customerIdInput = z.object({ customerId: accountId });

/** A session id as the lists show it; one that names no session of the caller is NOT_FOUND. */
export const sessionIdInput = z.object({
  id: text().trim().min(1, rule('is required')).max(64, rule('must be at most 64 characters')),
});
