/**
 * WeChat mini-program login (contract §3.2): the code is exchanged with WeChat first, so no error path
 * ever creates a customer; then the customer is found by openid or created, and a session opened, in
 * one transaction. An openid only ever matches a customer by `wx_openid`: a WeChat identity never
 * attaches itself to an e-mail account.
 */
import type { Prisma } from '../generated/prisma/client.ts';
import { AppError } from '../errors/app-error.ts';
import type { Context } from '../graphql/context.ts';
import { parseInput } from '../validation/parse-input.ts';
import { wxLoginInput } from './auth.schema.ts';
import { openSession } from './customer-session.service.ts';
import { accountDisabled, type CustomerLogin } from './login.service.ts';
import type { WxIdentity } from './wx-client.ts';

/** `wxLogin(code)`. */
export async function loginWithWeChat(ctx: Context, args: unknown): Promise<CustomerLogin> {
  const { code } = parseInput(wxLoginInput, args);
  const { wx, tokens, config } = ctx.services;
  if (!wx) throw new AppError('WX_LOGIN_NOT_CONFIGURED', 'Mini-program login is not configured on this server.');
  const identity = await wx.codeToIdentity(code);
  return ctx.db.prisma.$transaction(async (tx) => {
    const { customer, isNewUser } = await findOrCreateByOpenid(tx, identity);
    if (customer.disabled) throw accountDisabled();
    const token = await openSession(tx, tokens.customer, config.jwt.sessionMaxAge, customer.id);
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
