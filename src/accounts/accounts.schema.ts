/**
 * Input rules for accounts (contract §3.1, §3.4, §5), declared once and shared by GraphQL, REST and
 * the CLI. Customer usernames are e-mail addresses, stored trimmed and lower-cased; admin usernames
 * are free-form (3..64 characters, trimmed, case kept).
 */
import { z } from 'zod';
import { ADMIN_ROLES } from '../auth/roles.ts';
import { keywordArg, pageArgs } from '../validation/paging.ts';
import { httpUrl, INT32_MAX, rule, secretText, text } from '../validation/rules.ts';

/** Trimmed, lower-cased, at most 254 characters — the form customer usernames are stored and compared in. */
const normalisedEmail = () =>
  text().trim().toLowerCase().min(1, rule('is required')).max(254, rule('must be at most 254 characters'));

/**
 * The username of a login attempt: only "something@something" is required, so that an address our
 * stricter sign-up rule would not accept still gets the uniform 401 rather than a different answer.
 */
export const loginEmail = normalisedEmail().regex(/^[^\s@]+@[^\s@]+$/, rule('must be an e-mail address'));

/** The username of a new customer account. */
export const newEmail = normalisedEmail().regex(z.regexes.email, rule('must be an e-mail address'));

export const adminUsername = text()
  .trim()
  .min(3, rule('must be 3..64 characters'))
  .max(64, rule('must be 3..64 characters'));

/** A password presented at login: anything non-empty up to 1024 characters (never trimmed, only hashed). */
export const loginPassword = secretText()
  .min(1, rule('is required'))
  .max(1024, rule('must be at most 1024 characters'));

/** A password for a new account (NIST SP 800-63B: at least 8 characters, long ones allowed). */
export const newPassword = secretText()
  .min(8, rule('must be at least 8 characters'))
  .max(1024, rule('must be at most 1024 characters'));

export const createCustomerInput = z.object({
  username: newEmail,
  password: newPassword,
  nickname: text().trim().min(1, rule('must not be empty')).max(100, rule('must be at most 100 characters')).nullish(),
});
export type CreateCustomerInput = z.output<typeof createCustomerInput>;

/** One of the roles of contract §10.1 (GraphQL's `AdminRole` enum admits nothing else either). */
export const adminRole = z.enum(ADMIN_ROLES, { error: `must be one of ${ADMIN_ROLES.join(', ')}` });

/** `createAdmin`: a new admin is a viewer unless given a role (contract §10.1). */
export const createAdminInput = z.object({
  username: adminUsername,
  password: newPassword,
  role: adminRole.nullish().transform((role) => role ?? 'viewer'),
});
export type CreateAdminInput = z.output<typeof createAdminInput>;

export const accountId = z.number().int().min(1, 'must be a positive integer').max(INT32_MAX, 'is out of range');

export const setDisabledInput = z.object({ id: accountId, disabled: z.boolean({ error: 'must be true or false' }) });
export type SetDisabledInput = z.output<typeof setDisabledInput>;

export const setAdminRoleInput = z.object({ id: accountId, role: adminRole });
export type SetAdminRoleInput = z.output<typeof setAdminRoleInput>;

/** A nickname a customer chooses (sign-up, profile): trimmed, 1..64 characters (contract §8.1). */
export const ownNickname = text()
  .trim()
  .min(1, rule('must not be empty'))
  .max(64, rule('must be at most 64 characters'));

/** `updateMe` / PATCH /api/v1/me: an omitted field stays, null clears it. */
export const updateMeInput = z.object({
  nickname: ownNickname.nullish(),
  avatarUrl: httpUrl().nullish(),
});
export type UpdateMeInput = z.output<typeof updateMeInput>;

export const changePasswordInput = z.object({ currentPassword: loginPassword, newPassword });
export type ChangePasswordInput = z.output<typeof changePasswordInput>;

/** `customers(page, limit, keyword)` (contract §8.3). */
export const listCustomersInput = z.object({ ...pageArgs, keyword: keywordArg });
/** The parsed arguments (GraphQL's typing lets the optional keyword arrive as null). */
export type ListCustomersInput = Omit<z.output<typeof listCustomersInput>, 'keyword'> & { keyword?: string | null };

export const accountIdInput = z.object({ id: accountId });

/** The CLI's `reset-password`: a new password under the rules of new accounts. */
export const resetPasswordInput = z.object({ password: newPassword });
