/**
 * The login operations of both token systems (contract §3, §5, §8.1): register, logout, login, wxLogin,
 * refreshToken and adminLogin. REST runs the same fields (src/auth/auth.rest.ts).
 */

import { closeSession, refreshSession } from '../auth/sessions.service.ts';
import type { IssuedToken } from '../auth/token-system.ts';
import { builder } from '../graphql/builder.ts';
import { AdminType, CustomerType } from './accounts.graphql.ts';
import { adminLoginInput, customerLoginInput, registerInput, wxLoginInput } from './login.schema.ts';
import { type AdminLogin, type CustomerLogin, loginAdmin, loginCustomer, registerCustomer } from './login.service.ts';
import { loginWithWeChat } from './wx-login.service.ts';

const TokenPayload = builder.objectRef<IssuedToken>('TokenPayload').implement({
  description: 'An access token: send it as `Authorization: Bearer <accessToken>`.',
  fields: (t) => ({
    accessToken: t.exposeString('token'),
    tokenType: t.string({ resolve: () => 'Bearer' }),
    expiresIn: t.exposeInt('expiresIn', { description: 'Seconds until the token expires.' }),
  }),
});

const CustomerAuth = builder.objectRef<CustomerLogin>('CustomerAuth').implement({
  fields: (t) => ({
    accessToken: t.string({ resolve: (p) => p.token.token }),
    tokenType: t.string({ resolve: () => 'Bearer' }),
    expiresIn: t.int({ resolve: (p) => p.token.expiresIn }),
    user: t.field({ type: CustomerType, resolve: (p) => p.customer }),
    isNewUser: t.boolean({
      nullable: true,
      description: 'wxLogin only: true when this login created the account.',
      resolve: (p) => p.isNewUser ?? null,
    }),
  }),
});

const AdminAuth = builder.objectRef<AdminLogin>('AdminAuth').implement({
  fields: (t) => ({
    accessToken: t.string({ resolve: (p) => p.token.token }),
    tokenType: t.string({ resolve: () => 'Bearer' }),
    expiresIn: t.int({ resolve: (p) => p.token.expiresIn }),
    admin: t.field({ type: AdminType, resolve: (p) => p.admin }),
  }),
});

const RegisterInput = builder
  .inputType('RegisterInput', {
    fields: (t) => ({
      username: t.string({ required: true, description: 'E-mail address; stored trimmed and lower-cased.' }),
      password: t.string({ required: true, description: '8..1024 characters.' }),
      nickname: t.string({ description: 'Up to 64 characters.' }),
    }),
  })
  .validate(registerInput);

builder.mutationFields((t) => ({
  register: t.field({
    type: CustomerAuth,
    description:
      'Customer sign-up with e-mail and password; logged in at once (a session is opened). A taken username is ' +
      'VALIDATION_FAILED on `username`; REGISTER_IP_PER_HOUR sign-ups per client IP, then RATE_LIMITED.',
    args: { input: t.arg({ type: RegisterInput, required: true }) },
    resolve: (_root, args, ctx) => registerCustomer(ctx, args.input),
  }),
  logout: t.boolean({
    description:
      'Revokes the session of the customer token in the Authorization header: its every token stops working.',
    authScopes: { customer: true },
    resolve: (_root, _args, ctx) => closeSession(ctx),
  }),
  login: t.field({
    type: CustomerAuth,
    description: 'Customer login with e-mail and password; opens a session.',
    args: t.validate(
      { username: t.arg.string({ required: true }), password: t.arg.string({ required: true }) },
      customerLoginInput,
    ),
    resolve: (_root, args, ctx) => loginCustomer(ctx, args),
  }),
  wxLogin: t.field({
    type: CustomerAuth,
    description: 'Mini-program login with a wx.login() code; creates the customer on first use.',
    args: t.validate({ code: t.arg.string({ required: true }) }, wxLoginInput),
    resolve: (_root, args, ctx) => loginWithWeChat(ctx, args),
  }),
  refreshToken: t.field({
    type: TokenPayload,
    description:
      'Exchanges the customer token of the Authorization header (expired by at most the refresh grace) for a new one. ' +
      'The presented token is retired; presenting it again within 30 s returns the same successor, later it revokes the session.',
    authScopes: { customerRefresh: true },
    resolve: async (_root, _args, ctx) => refreshSession(ctx, await ctx.auth.refreshClaims()),
  }),
  adminLogin: t.field({
    type: AdminAuth,
    description:
      'Administrator login. With two-factor login on, `otp` (a 6-digit code, or a recovery code) is needed: without ' +
      'it OTP_REQUIRED; a wrong, reused or spent code OTP_INVALID (counted as a failed login).',
    args: t.validate(
      {
        username: t.arg.string({ required: true }),
        password: t.arg.string({ required: true }),
        otp: t.arg.string({ description: 'A 6-digit one-time code (30 s steps, ±1 step) or a recovery code.' }),
      },
      adminLoginInput,
    ),
    resolve: (_root, args, ctx) => loginAdmin(ctx, args),
  }),
}));
