/**
 * `npm run cli -- import FILE` (contract §13.2): the operator's import, run by the CLI's own process,
 * with its progress (a line per 10 % off a terminal, a bar on one), the report and the exit code.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliOn } from '../helpers/cli.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { csv } from './import-helpers.ts';

let app: TestApp;
let dir: string;
beforeAll(async () => {
  app = await startTestApp();
  // Inside this file's temporary directory (test/helpers/temp-dirs.ts), removed with it.
  dir = mkdtempSync(join(tmpdir(), 'cli-import-'));
});
afterAll(() => app?.close());

const fileOf = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('npm run cli -- import', () => {
  it('when a file with a bad item is imported, then the good ones are written, progress is shown per 10 %, the report names the row, and the exit code is 1', async () => {
    const rows = [
      ['handle', 'name', 'category', 'price'],
      ...Array.from({ length: 30 }, (_, i) => [`cli-${i}`, `Cli ${i}`, 'Cli > Imports', '5']),
      ['cli-bad', 'Cli bad', 'Cli', '-1'],
    ];
    const res = await cliOn(app, ['import', fileOf('items.csv', csv(rows))]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('100% (31/31 rows)');
    expect(res.stdout).toMatch(/^import #\d+ succeeded: 30 created, 0 updated, 0 unchanged, 1 failed \(31\/31 rows\)/);
    expect(res.stdout).toContain('row 32 price: must be >= 0');
    expect(res.stdout).toMatch(/every failed row: GET \/admin\/api\/imports\/\d+\/errors\.csv/);
    const audit = await app.db.prisma.auditEntry.findFirst({
      where: { action: 'item.create' },
      orderBy: { id: 'desc' },
    });
    expect(audit).toMatchObject({ actorType: 'cli' });
  });

  it('when a clean JSON Lines file is dry-run on a terminal, then a progress bar is drawn, nothing is written and the exit code is 0', async () => {
    const path = fileOf(
      'items.jsonl',
      `${JSON.stringify({ handle: 'cli-dry', name: 'Cli dry', category: 'Cli', price: 3 })}\n`,
    );
    const res = await cliOn(app, ['import', path, '--dry-run'], { terminal: true });
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(/importing \|.*\| 100% 1\/1 rows/);
    expect(res.stdout).toMatch(/succeeded \(dry run: nothing written\): 1 created/);
    expect(await app.db.prisma.item.count({ where: { handle: 'cli-dry' } })).toBe(0);
  });

  it('when the file is missing or an option is wrong, then exit code 2 and no import', async () => {
    const before = await app.db.prisma.import.count();
    expect((await cliOn(app, ['import', join(dir, 'missing.csv')])).code).toBe(2);
    expect((await cliOn(app, ['import', fileOf('x.csv', 'handle\n'), '--mode', 'merge'])).code).toBe(2);
    expect(await app.db.prisma.import.count()).toBe(before);
  });
});
