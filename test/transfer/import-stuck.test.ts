/**
 * An import whose batch fails the same way every time (a bug, a row the database refuses for a reason
 * the plan did not foresee) is failed after SLICE_FAILURES_TOLERATED tries instead of being retried for
 * ever while it says `running`; what committed before stays. The failure is made by a trigger the test
 * adds, refusing one item's name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLICE_FAILURES_TOLERATED } from '../../src/transfer/import-job.ts';
import { loginAsAdmin } from '../helpers/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { csv, runImport } from './import-helpers.ts';

let app: TestApp;
let owner: string;

beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
  owner = await loginAsAdmin(app);
  await app.db.sql.query(`CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'refused by the test: %', NEW.name; END $$`);
  await app.db.sql.query(
    `CREATE TRIGGER refuse_poison BEFORE INSERT ON items FOR EACH ROW WHEN (NEW.name = 'Poison') EXECUTE FUNCTION refuse_poison()`,
  );
});
afterAll(async () => {
  await app?.db.sql.query('DROP TRIGGER IF EXISTS refuse_poison ON items');
  await app?.close();
});

describe('an import whose batch always fails', () => {
  it('when a batch fails every time, then the import ends failed naming the row the batch starts at, and earlier batches stay', async () => {
    // The first batch is small (sized by time from a few items): the poison is far enough on to be in a later one.
    const good = Array.from({ length: 40 }, (_, i) => [`stuck-${i}`, `Stuck ${i}`, 'Outdoor', '5']);
    const done = await runImport(
      app,
      owner,
      csv([['handle', 'name', 'category', 'price'], ...good, ['stuck-poison', 'Poison', 'Outdoor', '5']]),
    );
    expect(done.status).toBe('failed');
    const stop = done.errors.at(-1)!;
    expect(stop.message).toMatch(new RegExp(`failed ${SLICE_FAILURES_TOLERATED} times in a row`));
    expect(stop.row).toBeGreaterThanOrEqual(2);
    expect(stop.row).toBeLessThanOrEqual(42);
    expect(await app.db.prisma.item.count({ where: { handle: 'stuck-poison' } })).toBe(0);
    // What committed before the stuck batch stayed: the items before the row it starts at.
    expect(await app.db.prisma.item.count({ where: { handle: { startsWith: 'stuck-' } } })).toBe(stop.row - 2);
  });
});
