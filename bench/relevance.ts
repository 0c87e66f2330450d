/**
 * The relevance suite's scores for `npm run bench` (bench/relevance-suite.ts): its catalogue in an
 * embedded database, each query run through the service's own search (the list's repository with
 * the keyword compiled as a request compiles it), scored against the suite's rules.
 */
import { findItemPage } from '../src/catalog/item.repository.ts';
import { openDatabase } from '../src/db/database.ts';
import { applyMigrations, readMigrations } from '../src/db/migrate.ts';
import { compileKeyword, synonymIndexOf } from '../src/search/keyword.ts';
import { normalise } from '../src/search/text.ts';
import {
  loadSuite,
  SUITE_QUERIES,
  SUITE_SYNONYMS,
  type SuiteScore,
  scoreSuite,
  suiteItems,
} from './relevance-suite.ts';

export async function relevanceScore(): Promise<SuiteScore> {
  const db = await openDatabase({ kind: 'pglite', role: 'bench' });
  try {
    await applyMigrations(db.sql, await readMigrations());
    const items = suiteItems();
    await loadSuite(db.prisma, items);
    const synonyms = synonymIndexOf(SUITE_SYNONYMS.map((g) => g.map(normalise)));
    const answers = new Map<string, string[]>();
    for (const { q } of SUITE_QUERIES) {
      const page = await findItemPage(db.sql, { search: compileKeyword(q, synonyms) }, 'relevance', 10, 0);
      answers.set(
        q,
        page.items.map((i) => i.name),
      );
    }
    return scoreSuite(answers, items);
  } finally {
    await db.close();
  }
}
