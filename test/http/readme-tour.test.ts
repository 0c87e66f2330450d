/**
 * The README stays true: its "Quick tour" commands run here, in one shell, against a server started
 * with the environment of the tour's start command, and each block's output must match the block
 * the README shows under it (`…` stands for what varies). Its numbers and links are checked too.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/service-process.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The fenced blocks of the section under `heading`, in order. */
function blocksUnder(heading: string): Array<{ lang: string; body: string }> {
  const start = README.indexOf(`\n## ${heading}\n`);
  expect(start, `README has a "## ${heading}" section`).toBeGreaterThanOrEqual(0);
  const end = README.indexOf('\n## ', start + 1);
  const section = README.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, body: m[2]! }));
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as `-`. */
function headingAnchors(markdown: string): string[] {
  return [...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
    m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replaceAll(' ', '-'),
  );
}

/** True when `actual` is `expected` with each `…` standing for any text (possibly none). */
function matchesWithEllipses(actual: string, expected: string): boolean {
  const pattern = expected
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*');
  return new RegExp(`^${pattern}$`).test(actual);
}

let app: TestApp;
const blocks = blocksUnder('Quick tour');
const [start, ...steps] = blocks.filter((b) => b.lang === 'sh');

beforeAll(async () => {
  // The tour's own start command decides the server's environment (ADMIN_PASSWORD=…).
  expect(start?.body).toMatch(/\bnpm start\b/);
  const env = Object.fromEntries([...start!.body.matchAll(/\b([A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
  expect(env.ADMIN_PASSWORD).toBeDefined();
  // What `npm start` does in development: demo catalogue, bootstrap admin under its default name.
  app = await startTestApp({ NODE_ENV: 'development', SEED_DEMO: 'true', ADMIN_USERNAME: 'admin', ...env });
});
afterAll(() => app?.close());

describe('README', () => {
  it('when the quick tour is run as written, then every command prints what the README shows', async () => {
    expect(steps.length).toBeGreaterThanOrEqual(3);
    const address = app.url.replace('http://', '');
    // One shell for the whole tour (a block may use what an earlier one set, like $TOKEN); a marker
    // line separates the blocks' output.
    const script = steps
      .map((step, i) => `${step.body.replaceAll('localhost:3000', address)}\necho; echo '@@block ${i}@@'`)
      .join('\n');
    // Asynchronously: the server answering the tour runs in this process. `--norc`: bash reads the
    // system bashrc when its stdin is a socket (Node's pipes are) as if run by sshd, and Debian's
    // breaks under `-u`.
    const run = await promisify(execFile)('bash', ['--norc', '-euo', 'pipefail', '-c', script], { timeout: 30_000 });
    expect(run.stderr).toBe('');
    const outputs = run.stdout.split(/\n?@@block \d+@@\n/);
    // Each sh block is followed by the block of its output (a block with no output has none).
    let i = 0;
    for (const [index, block] of blocks.entries()) {
      if (block.lang !== 'sh' || block === start) continue;
      const shown = blocks[index + 1]?.lang === 'text' ? blocks[index + 1]!.body.trim() : '';
      const actual = (outputs[i] ?? '').trim();
      expect(matchesWithEllipses(actual, shown), `block ${i}:\n${actual}\n--- README shows ---\n${shown}`).toBe(true);
      i++;
    }
  });

  it('when the README counts the demo catalogue, then the numbers are what is seeded', async () => {
    const claim = README.match(/\((\d+) categories in a tree, (\d+) items/);
    expect(claim).not.toBeNull();
    const demo = await startTestApp({ SEED_DEMO: 'true' });
    try {
      expect(await demo.db.prisma.category.count()).toBe(Number(claim![1]));
      expect(await demo.db.prisma.item.count()).toBe(Number(claim![2]));
    } finally {
      await demo.close();
    }
  });

  it('when the README and docs/ point at files, then they are in the repository, and so are the headings linked', () => {
    expect(README).not.toMatch(/\.\.\//);
    const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
      f.endsWith('.md'),
    );
    for (const page of pages) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      for (const [, target] of text.matchAll(/\]\(((?!https?:)[^)\s]+)\)/g)) {
        const [path, anchor] = target!.split('#');
        const file = path ? join(ROOT, dirname(page), path) : join(ROOT, page);
        expect(existsSync(file), `${page} → ${target}`).toBe(true);
        if (anchor) expect(headingAnchors(readFileSync(file, 'utf8')), `${page} → ${target}`).toContain(anchor);
      }
    }
    // The contract copy is the one the README names as the reference.
    expect(readFileSync(join(ROOT, 'docs/contract.md'), 'utf8')).toMatch(/^# Shop service — the API contract/);
  });
});
