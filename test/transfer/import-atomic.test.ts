/**
 * Contract §13.2's atomic imports through the real server: a dry run says what the real run would
 * (failed, nothing created, when an item is bad), a failed one reports nothing written, and `rows_done`
 * grows through both of its passes — the check and the write — without going back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAsAdmin } from '../helpers/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { csv, type ImportAnswer, importEnded, runImport, sendImport } from './import-helpers.ts';

let app: TestApp;
let owner: string;

beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
  owner = await loginAsAdmin(app);
});
afterAll(() => app?.close());

const HEADER = ['handle', 'name', 'category', 'price'];
const itemCount = (prefix: string) => app.db.prisma.item.count({ where: { handle: { startsWith: prefix } } });

describe('atomic imports (contract §13.2)', () => {
  it('when an atomic file has a bad item, then its dry run fails as the real run does, and both report nothing created', async () => {
    const file = csv([
      HEADER,
      ['atomic-dry-a', 'Atomic dry a', 'Outdoor', '5'],
      ['atomic-dry-b', 'Atomic dry b', 'Outdoor', 'x'],
      ['atomic-dry-c', 'Atomic dry c', 'Outdoor', '7'],
    ]);
    const dry = await runImport(app, owner, file, 'atomic=true&dry_run=true');
    const real = await runImport(app, owner, file, 'atomic=true');
    for (const run of [dry, real]) {
      expect(run).toMatchObject({
        status: 'failed',
        rows_total: 3,
        rows_done: 3,
        items: { created: 0, updated: 0, unchanged: 0, failed: 1 },
      });
      expect(run.errors).toMatchObject([{ row: 3, handle: 'atomic-dry-b', field: 'price' }]);
    }
    expect(await itemCount('atomic-dry-')).toBe(0);
    // Without the bad item both succeed, and the dry run counts what the real run then creates.
    const good = csv([HEADER, ['atomic-dry-a', 'Atomic dry a', 'Outdoor', '5']]);
    const goodDry = await runImport(app, owner, good, 'atomic=true&dry_run=true');
    expect(goodDry).toMatchObject({ status: 'succeeded', items: { created: 1, failed: 0 } });
    expect(await itemCount('atomic-dry-')).toBe(0);
    const goodReal = await runImport(app, owner, good, 'atomic=true');
    expect(goodReal).toMatchObject({ status: 'succeeded', rows_done: 1, items: goodDry.items });
    expect(await itemCount('atomic-dry-')).toBe(1);
  });

  it('when an atomic import runs, then rows_done grows through the check and the write and never goes back', async () => {
    const rows = 2000;
    const file = csv([
      HEADER,
      ...Array.from({ length: rows }, (_, i) => [`atomic-rows-${i}`, `Atomic rows ${i}`, 'Outdoor', '5']),
    ]);
    const started = await sendImport(app, owner, file, 'atomic=true');
    expect(started.status, started.text).toBe(202);
    const seen: number[] = [];
    let last: ImportAnswer;
    for (const until = Date.now() + 120_000; ; await new Promise((r) => setTimeout(r, 20))) {
      expect(Date.now()).toBeLessThan(until);
      last = (await app.request<ImportAnswer>(`/admin/api/imports/${started.body.id}`, { token: owner })).body;
      seen.push(last.rows_done);
      if (!['queued', 'running'].includes(last.status)) break;
    }
    expect(last).toMatchObject({ status: 'succeeded', rows_total: rows, rows_done: rows, items: { created: rows } });
    for (let i = 1; i < seen.length; i++)
      expect(seen[i], `rows_done went ${seen[i - 1]} → ${seen[i]}`).toBeGreaterThanOrEqual(seen[i - 1]!);
    // The check pass counted its half (the old count reached every row, then went back to 0).
    expect(
      seen.some((n) => n > 0 && n < rows),
      JSON.stringify(seen),
    ).toBe(true);
    await importEnded(app, owner, started.body.id);
  });
});
