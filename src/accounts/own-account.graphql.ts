/** A customer's own account operations (contract §8.1): `updateMe` and `changePassword`; `me` is in accounts.graphql.ts. */
import { builder } from '../graphql/builder.ts';
import { CustomerType } from './accounts.graphql.ts';
import { changePasswordInput, updateMeInput } from './accounts.schema.ts';
import { changePassword, updateProfile } from './own-account.service.ts';

const UpdateMeInput = builder
  .inputType('UpdateMeInput', {
    description: 'Only the given fields change; null clears one.',
    fields: (t) => ({
      nickname: t.string({ description: '1..64 characters after trimming.' }),
      avatarUrl: t.string({ description: 'An http(s) URL, up to 2048 characters.' }),
    }),
  })
  .validate(updateMeInput);

builder.mutationFields((t) => ({
  updateMe: t.field({
    type: CustomerType,
    description: "Changes the logged-in customer's nickname or avatar.",
    authScopes: { customer: true },
    args: { input: t.arg({ type: UpdateMeInput, required: true }) },
    resolve: (_root, args, ctx) => updateProfile(ctx, args.input),
  }),
  changePassword: t.boolean({
    description:
      "Changes the logged-in customer's password. A wrong current password is INVALID_CREDENTIALS and counts as a " +
      'failed login; success revokes every other session of the customer (this one stays).',
    authScopes: { customer: true },
    args: t.validate(
      {
        currentPassword: t.arg.string({ required: true }),
        newPassword: t.arg.string({ required: true, description: '8..1024 characters.' }),
      },
      changePasswordInput,
    ),
    resolve: (_root, args, ctx) => changePassword(ctx, args),
  }),
}));
