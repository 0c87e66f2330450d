/** An admin's own two-factor login (contract §10.3) and an owner's reset of another's. */
import { builder } from '../graphql/builder.ts';
import { adminIdInput, totpCodeInput } from './admin-account.schema.ts';
import { confirmTotp, disableTotp, enrollTotp, resetTotp, type TotpEnrollment } from './admin-account.service.ts';

const TotpEnrollmentType = builder.objectRef<TotpEnrollment>('TotpEnrollment').implement({
  description: 'A two-factor secret pending confirmation: add it to an authenticator app, then call confirmTotp.',
  fields: (t) => ({
    secret: t.exposeString('secret', { description: 'Base32, for typing into an authenticator app.' }),
    otpauthUri: t.exposeString('otpauthUri', { description: '`otpauth://totp/…`, what the QR code holds.' }),
    qrSvg: t.exposeString('qrSvg', { description: 'The URI as an SVG QR code.' }),
  }),
});

builder.mutationFields((t) => ({
  enrollTotp: t.field({
    type: TotpEnrollmentType,
    description: 'Starts turning on two-factor login for the calling admin; nothing changes until confirmTotp.',
    authScopes: { adminEnrolling: true },
    resolve: (_root, _args, ctx) => enrollTotp(ctx),
  }),
  confirmTotp: t.field({
    type: ['String'],
    description:
      'Turns two-factor login on with a current code of the enrolled secret; returns 10 recovery codes, shown ' +
      'this once (each works once in place of a code). A wrong code is VALIDATION_FAILED on `code` and counts ' +
      'as a failed login for your login limits (spent: RATE_LIMITED).',
    authScopes: { adminEnrolling: true },
    args: t.validate({ code: t.arg.string({ required: true }) }, totpCodeInput),
    resolve: (_root, args, ctx) => confirmTotp(ctx, args.code),
  }),
  disableTotp: t.boolean({
    description:
      "Turns the calling admin's two-factor login off; needs a current code (or a recovery code). A wrong code " +
      'counts as a failed login for your login limits (spent: RATE_LIMITED).',
    authScopes: { admin: true },
    args: t.validate({ code: t.arg.string({ required: true }) }, totpCodeInput),
    resolve: (_root, args, ctx) => disableTotp(ctx, args.code),
  }),
  resetTotp: t.boolean({
    description:
      "Turns another admin's two-factor login off (a lost phone); they can enrol again. Not your own: use disableTotp.",
    authScopes: { owner: true },
    args: t.validate({ adminId: t.arg.int({ required: true }) }, adminIdInput),
    resolve: (_root, args, ctx) => resetTotp(ctx, args.adminId),
  }),
}));
