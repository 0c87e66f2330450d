/**
 * Generated hostile input on the admin mutations of schema.graphql (contract §4.4, §5, §7.1):
 * createItem, updateItem, deleteItem, createCategory, updateCategory, deleteCategory, createCustomer,
 * setCustomerDisabled, createAdmin, setAdminDisabled, and those of operator trust (§10: setAdminRole,
 * auditLog, confirmTotp, revokeAdminSession, revokeApiKey; createApiKey's input holds an enum, which the
 * literal writer cannot spell — test/trust/api-keys.test.ts covers its validation) — each with near-valid and hostile arguments, as
 * variables, as inline literals and (refused) over GET, under valid admin tokens and every other kind
 * of credential. Every answer must be data or errors with contract codes (never INTERNAL, never a
 * 5xx), a mutation that answered with errors must leave the database as it was, and where the contract
 * prescribes the answer (a customer token → TOKEN_INVALID, U+0000 in a stored string →
 * VALIDATION_FAILED) it is checked. Generated ids are small, so updates and deletes hit the fixtures'
 * sacrificial rows and the protected ones survive (test/hostile/fixtures.ts).
 */
import { describe, expect, it } from 'vitest';
import { fuzz, fuzzTimeout, runs } from '../helpers/hostile.ts';
import { hostileSuite } from './fixtures.ts';
import { operationCase, operationSpread, runOperationCase } from './graphql-ops.ts';

const FILE = 'test/hostile/graphql-admin.test.ts';
const FIELDS = [
  'createItem',
  'updateItem',
  'deleteItem',
  'createCategory',
  'updateCategory',
  'deleteCategory',
  'createCustomer',
  'setCustomerDisabled',
  'createAdmin',
  'setAdminDisabled',
  'setAdminRole',
  'auditLog',
  'confirmTotp',
  'revokeAdminSession',
  'revokeApiKey',
];
/**
 * What cannot succeed every time by design: setAdminDisabled / setAdminRole only on admins this run
 * created, deleteCategory only on an emptied category, revokeApiKey only on a key not revoked yet;
 * confirmTotp and revokeAdminSession never (no enrolment is pending, generated ids name no session).
 */
const MAY_FAIL = [
  'setAdminDisabled',
  'setAdminRole',
  'deleteCategory',
  'revokeApiKey',
  'confirmTotp',
  'revokeAdminSession',
];
const RUNS = runs(900);

const suite = hostileSuite('graphql-admin');
const { tally, ctx } = suite;

describe('hostile input on the GraphQL admin mutations (seeded fast-check)', { timeout: fuzzTimeout(RUNS) }, () => {
  it('when every admin mutation gets generated variables, inline literals and tokens of every kind, then every answer carries contract codes and failed mutations change nothing', async () => {
    const name = expect.getState().currentTestName!.split(' > ').pop()!;
    await fuzz(name, FILE, operationCase(FIELDS), RUNS, (c) => runOperationCase(ctx(), suite.fx, c));
    const mustSucceed = FIELDS.filter((f) => !MAY_FAIL.includes(f));
    const missing = operationSpread(tally, FIELDS, Math.floor(RUNS / FIELDS.length / 3), mustSucceed);
    expect(missing, tally.summary()).toEqual([]);
  });
});
