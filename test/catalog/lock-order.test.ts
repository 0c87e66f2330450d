/**
 * The catalogue writes' order of locks (src/catalog/catalog-write.ts lockCatalogue): the item rows a
 * write changes first, the catalogue lock after them, just before the postings — so a write holds that
 * lock, which every catalogue write queues for, only for its postings, counts and events. An order
 * that one writer broke would show here as a deadlock (PostgreSQL ends one of the two: a 500) or a
 * count gone wrong. On PostgreSQL, through the real server, every kind of catalogue write at once on
 * the same items, several rounds: renames, prices, new handles, stock adjustments, statuses in bulk,
 * category renames (their items' documents rewritten), creates, deletes one and many, an import
 * updating the same items, and schedules passing (the flip) — every answer a success, every import
 * succeeded, and the kept counts equal to the postings they count.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAsAdmin } from '../helpers/accounts.ts';
import { ITEMS_PATH, itemBody, postItem } from '../helpers/catalog-admin.ts';
import { type ApiResponse, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { TEST_DB } from '../helpers/test-database.ts';
import { csv, ITEM_FILE_HEADER, importEnded, sendImport } from '../transfer/import-helpers.ts';

const ROUNDS = 4;

describe.skipIf(TEST_DB !== 'postgres')('catalogue writes at once, every kind (lock order)', () => {
  let app: TestApp;
  let owner: string;
  let parent: number;
  let child: number;
  const items: Array<{ id: number; handle: string; skus: number[] }> = [];

  const gql = (query: string, variables: object) =>
    app.request('/graphql', { method: 'POST', token: owner, body: { query, variables } });
  const patch = (id: number, body: object) =>
    app.request(`${ITEMS_PATH}/${id}`, { method: 'PATCH', token: owner, body });
  const create = async (name: string, overrides: object = {}) => {
    const res = await postItem(app, owner, itemBody(child, { name, ...overrides }));
    expect(res.status, res.text).toBe(201);
    return res.body as { id: number; handle: string; skus: Array<{ id: number }> };
  };
  const category = (id: number, name: string, parentId: number | null) =>
    gql('mutation($id:Int!,$input:CategoryInput!){updateCategory(id:$id,input:$input){id}}', {
      id,
      input: { name, parentId },
    });

  beforeAll(async () => {
    app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
    owner = await loginAsAdmin(app);
    const made = async (name: string, parentId: number | null) =>
      (
        await gql('mutation($input:CategoryInput!){createCategory(input:$input){id}}', {
          input: { name, parentId },
        })
      ).body.data.createCategory.id as number;
    parent = await made('Lock order', null);
    child = await made('Lock lamps', parent);
    for (let n = 0; n < 8; n++) {
      const item = await create(`Lock lamp ${n}`, { handle: `lock-lamp-${n}` });
      items.push({ id: item.id, handle: item.handle, skus: item.skus.map((s) => s.id) });
    }
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  it('when every kind of catalogue write runs at once on the same items, round after round, then each succeeds and the counts stay exact', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const [a, b, c, d, e, f, g, h] = items.map((i) => i.id) as [
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
      ];
      const doomed = [await create(`Doomed ${round}`), await create(`Doomed more ${round}`)];
      // Two schedules that pass while the round runs: the process's flip, under the same order.
      const soon = new Date(Date.now() + 150).toISOString();
      for (const id of [g, h]) {
        const res = await patch(id, { status: 'active', publish_at: soon, unpublish_at: null });
        expect(res.status, res.text).toBe(200);
      }
      const file = csv([
        ITEM_FILE_HEADER,
        ...[2, 3, 5].map((n) => [
          items[n]!.handle,
          `Imported lamp ${n} r${round}`,
          'Lock imports',
          12 + n,
          7,
          '',
          `IMP-${n}`,
          12,
          3,
          'red',
        ]),
        [`lock-new-${round}`, `New lamp ${round}`, 'Lock imports', 9, 1, '', 'NEW-1', 9, 1, 'blue'],
      ]);
      const writes: Array<Promise<ApiResponse>> = [
        patch(a, { name: `Renamed A ${round}` }),
        patch(a, { price: 30 + round }),
        patch(b, { name: `Renamed B ${round}`, handle: `lock-b-${round}` }),
        patch(c, { name: `Renamed C ${round}`, price: 20 + round }),
        patch(d, { status: round % 2 ? 'active' : 'archived' }),
        patch(g, { name: `Scheduled G ${round}` }),
        app.request('/admin/api/stock-adjustments', {
          method: 'POST',
          token: owner,
          body: {
            adjustments: [
              { sku_id: items[0]!.skus[0], delta: 1 },
              { sku_id: items[6]!.skus[0], delta: -1 },
            ],
          },
          headers: { 'Idempotency-Key': `lock-order-${round}` },
        }),
        gql('mutation($ids:[Int!]!,$s:ItemStatus!){setItemsStatus(ids:$ids,status:$s)}', {
          ids: [a, b, c, e, f],
          s: round % 2 ? 'active' : 'draft',
        }),
        category(child, `Lock lamps ${round}`, parent),
        category(parent, `Lock order ${round}`, null),
        postItem(app, owner, itemBody(child, { name: `Created ${round}`, handle: `lock-created-${round}` })),
        app.request(`${ITEMS_PATH}/${doomed[0]!.id}`, { method: 'DELETE', token: owner }),
        gql('mutation($ids:[Int!]!){deleteItems(ids:$ids)}', { ids: [doomed[1]!.id] }),
        patch(e, {
          name: `Renamed E ${round}`,
          skus: [{ sku_code: `E-${round}`, specs: { color: 'green' }, stock: 2 }],
        }),
        patch(f, { description: `Round ${round}` }),
        sendImport(app, owner, file),
      ];
      const answers = await Promise.all(writes);
      for (const answer of answers) {
        expect(answer.status, answer.text).toBeLessThan(300);
        // GraphQL's errors (an import's answer has an empty list of its own).
        expect(answer.body?.errors ?? [], answer.text).toEqual([]);
      }
      const imported = await importEnded(app, owner, answers.at(-1)!.body.id);
      expect(imported.status, JSON.stringify(imported.errors)).toBe('succeeded');
      // The categories renamed back (the import names them by path).
      expect((await category(child, 'Lock lamps', parent)).status).toBe(200);
      expect((await category(parent, 'Lock order', null)).status).toBe(200);
      items[1]!.handle = `lock-b-${round}`;
    }
    // The schedules have passed and been flipped.
    await sleep(300);
    const visible = await app.db.prisma.item.findMany({
      where: { id: { in: [items[6]!.id, items[7]!.id] } },
      select: { visible: true },
    });
    expect(visible.map((v) => v.visible)).toEqual([true, true]);
    // Every token's kept count equals its visible postings (migration 20261203000000_item_visibility).
    const [wrong] = await app.db.prisma.$queryRawUnsafe<Array<{ n: number }>>(
      `SELECT count(*)::int AS n
         FROM search_token_counts c
         FULL JOIN (SELECT token, count(*)::int AS items FROM search_postings WHERE visible GROUP BY token) p USING (token)
        WHERE COALESCE(c.items, 0) <> COALESCE(p.items, 0)`,
    );
    expect(wrong!.n).toBe(0);
  }, 120_000);
});
