/**
 * Contract §14.1 for imports (§13.2): each batch appends its items' events in its own transaction —
 * `item.created`, `item.updated`, and `item.published` for an existing item a file makes visible — and
 * the import's end appends `import.finished` with the Import in REST names (the same as
 * GET /admin/api/imports/{id}); a dry run changes nothing and appends only its `import.finished`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAsAdmin } from '../helpers/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { csv, runImport } from '../transfer/import-helpers.ts';

let app: TestApp;
let owner: string;

beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
  owner = await loginAsAdmin(app);
});
afterAll(() => app?.close());

const HEADER = ['handle', 'name', 'category', 'price', 'stock', 'status'];

async function eventsAfter(after: number) {
  const res = await app.request(`/admin/api/events?after=${after}&limit=500`, { token: owner });
  expect(res.status, res.text).toBe(200);
  return res.body.events as Array<{
    seq: number;
    type: string;
    actor: { type: string; name: string } | null;
    data: any;
  }>;
}
const lastSeq = async () => (await app.db.prisma.event.aggregate({ _max: { seq: true } }))._max.seq ?? 0;

describe('import events (contract §14.1)', () => {
  it('when a file creates, then changes and publishes items, then each batch’s items have their events and each import its import.finished', async () => {
    let after = await lastSeq();
    const first = await runImport(
      app,
      owner,
      csv([
        HEADER,
        ['ev-lamp', 'Event lamp', 'Lights', '10', 3, 'draft'],
        ['ev-desk', 'Event desk', 'Desks', '99', 1, 'active'],
      ]),
    );
    expect(first.status).toBe('succeeded');
    let events = await eventsAfter(after);
    expect(events.map((e) => [e.type, e.data.item?.handle ?? e.data.import?.id])).toEqual([
      ['item.created', 'ev-lamp'],
      ['item.created', 'ev-desk'],
      ['import.finished', first.id],
    ]);
    for (const event of events) expect(event.actor).toMatchObject({ type: 'admin', name: 'root' });
    // The Import in REST names, as the route answers it.
    const read = await app.request(`/admin/api/imports/${first.id}`, { token: owner });
    expect(events[2]!.data).toEqual({ import: read.body });

    after = await lastSeq();
    const second = await runImport(
      app,
      owner,
      csv([
        HEADER,
        ['ev-lamp', 'Event lamp', 'Lights', '12', 3, 'active'],
        ['ev-desk', 'Event desk', 'Desks', '99', 1, 'active'],
      ]),
    );
    expect(second.items).toMatchObject({ updated: 1, unchanged: 1 });
    events = await eventsAfter(after);
    expect(events.map((e) => [e.type, e.data.item?.handle ?? e.data.import?.id])).toEqual([
      ['item.updated', 'ev-lamp'],
      ['item.published', 'ev-lamp'],
      ['import.finished', second.id],
    ]);
    expect(events[0]!.data.item).toMatchObject({ price: 12, status: 'active', version: 2 });

    after = await lastSeq();
    const dry = await runImport(
      app,
      owner,
      csv([HEADER, ['ev-chair', 'Event chair', 'Desks', '5', 1, 'active']]),
      'dry_run=true',
    );
    expect(dry.items.created).toBe(1);
    events = await eventsAfter(after);
    expect(events.map((e) => e.type)).toEqual(['import.finished']);
    expect(events[0]!.data.import).toMatchObject({ id: dry.id, dry_run: true, status: 'succeeded' });
  });

  it('when an atomic import succeeds, then its items’ events come before its import.finished, in one commit', async () => {
    const after = await lastSeq();
    const done = await runImport(
      app,
      owner,
      csv([
        HEADER,
        ['ev-a1', 'Atomic one', 'Lights', '1', 1, 'draft'],
        ['ev-a2', 'Atomic two', 'Lights', '2', 1, 'draft'],
      ]),
      'atomic=true',
    );
    expect(done.status).toBe('succeeded');
    const events = await eventsAfter(after);
    expect(events.map((e) => e.type)).toEqual(['item.created', 'item.created', 'import.finished']);
    expect(events.map((e) => e.seq)).toEqual([after + 1, after + 2, after + 3]);
  });
});
