/** Input rules of the sign-up and login operations (contract §3.1, §3.2, §3.4, §8.1), shared by GraphQL and REST. */
import { z } from 'zod';
import { rule, text } from '../validation/rules.ts';
import { adminUsername, loginEmail, loginPassword, newEmail, newPassword, ownNickname } from './accounts.schema.ts';

export const customerLoginInput = z.object({ username: loginEmail, password: loginPassword });
export type CustomerLoginInput = z.output<typeof customerLoginInput>;

export const adminLoginInput = z.object({
  username: adminUsername,
  password: loginPassword,
  /** A 6-digit one-time code or a recovery code, for an admin with two-factor login on (contract §10.3). */
  otp: text()
    .trim()
    .max(64, rule('must be at most 64 characters'))
    .nullish()
    .transform((v) => v || undefined),
});
/** The parsed arguments (GraphQL's typing lets the optional `otp` arrive as null). */
export type AdminLoginInput = Omit<z.output<typeof adminLoginInput>, 'otp'> & { otp?: string | null };

export const wxLoginInput = z.object({
  code: text().min(1, rule('is required')).max(128, rule('must be at most 128 characters')),
});
export type WxLoginInput = z.output<typeof wxLoginInput>;

/** `register` (contract §8.1): the rules of createCustomer, with the storefront's shorter nickname. */
export const registerInput = z.object({
  username: newEmail,
  password: newPassword,
  nickname: ownNickname.nullish().transform((v) => v ?? undefined),
});
export type RegisterInput = z.output<typeof registerInput>;
