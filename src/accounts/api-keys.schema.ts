/** Input rules for API keys (contract §10.5). */
import { z } from 'zod';
import { rule, text } from '../validation/rules.ts';
import { adminRole } from './accounts.schema.ts';

export const createApiKeyInput = z.object({
  name: text().trim().min(1, rule('must not be empty')).max(100, rule('must be at most 100 characters')),
  // A key acts without a person behind it: it may do much, but never the owner's own work (§10.5).
  role: adminRole.refine((role) => role !== 'owner', 'must not be owner: an API key may have any other role'),
  expiresAt: z
    .date()
    .nullish()
    .refine((at) => !at || at.getTime() > Date.now(), 'must be in the future'),
});
export type CreateApiKeyInput = z.output<typeof createApiKeyInput>;
