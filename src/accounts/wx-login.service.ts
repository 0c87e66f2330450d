/**
 * WeChat mini-program login (contract §3.2): the code is exchanged with WeChat first, so no error path
 * ever creates a customer; then the customer is found by openid or created, and a session opened, in
 * one transaction. An openid only ever matches a customer by `wx_openid`: a WeChat identity never
 * attaches itself to an e-mail account.
 */

import { openSession } from '../auth/sessions.service.ts';
import type { WxIdentity } from '../auth/wx-client.ts';
import { AppError, accountDisabled } from '../errors/app-error.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { RequestContext } from '../request-context.ts';
import type { WxLoginInput } from './login.schema.ts';
import type { CustomerLogin } from './login.service.ts';

/** `wxLogin(code)`. */
export async function loginWithWeChat(ctx: RequestContext, { code }: WxLoginInput): Promise<CustomerLogin> {
  const { wx } = ctx.services;
  if (!wx) throw new AppError('WX_LOGIN_NOT_CONFIGURED', 'Mini-program login is not configured on this server.');
  // Before WeChat is called: a flood of bad codes must not burn the app's jscode2session quota.
  await ctx.services.loginLimiter.admitWxLogin(ctx.clientIp);
  const identity = await wx.codeToIdentity(code).catch((err: unknown) => {
    if (err instanceof AppError && err.code === 'WX_CODE_INVALID') {
      ctx.services.metrics.loginFailures.inc({ realm: 'customer', method: 'wechat' });
    }
    throw err;
  });
  return ctx.db.prisma.$transaction(async (tx) => {
    const { customer, isNewUser } = await findOrCreateByOpenid(tx, identity);
    if (customer.disabled) throw accountDisabled();
    const token = await openSession(ctx, customer.id, tx);
    return { token, customer, isNewUser };
  });
}

/**
 * `INSERT … ON CONFLICT DO NOTHING` then read: when two first logins of one openid race, the second
 * insert waits for the first and does nothing, so both end up with the same, single customer.
 */
async function findOrCreateByOpenid(tx: Prisma.TransactionClient, identity: WxIdentity) {
  const [created] = await tx.customer.createManyAndReturn({
    data: [{ wxOpenid: identity.openid, wxUnionid: identity.unionid ?? null }],
    skipDuplicates: true,
  });
  if (created) return { customer: created, isNewUser: true };
  let customer = await tx.customer.findUniqueOrThrow({ where: { wxOpenid: identity.openid } });
  if (identity.unionid && customer.wxUnionid !== identity.unionid) {
    customer = await tx.customer.update({ where: { id: customer.id }, data: { wxUnionid: identity.unionid } });
  }
  return { customer, isNewUser: false };
}
