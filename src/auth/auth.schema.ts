/** Input rules of the login operations (contract §3.1, §3.2, §3.4), shared by GraphQL and REST. */
import { z } from 'zod';
import { adminUsername, loginEmail, loginPassword } from '../accounts/accounts.schema.ts';
import { rule, text } from '../validation/rules.ts';

export const customerLoginInput = z.object({ username: loginEmail, password: loginPassword });
export type CustomerLoginInput = z.output<typeof customerLoginInput>;

export const adminLoginInput = z.object({ username: adminUsername, password: loginPassword });
export type AdminLoginInput = z.output<typeof adminLoginInput>;

export const wxLoginInput = z.object({
  code: text().min(1, rule('is required')).max(128, rule('must be at most 128 characters')),
});
export type WxLoginInput = z.output<typeof wxLoginInput>;
