/**
 * The synonym groups search expands terms with (contract §9.4), read once per catalogue generation:
 * a change to the groups fires the catalogue's notification like any catalogue write, so every
 * instance reads them again within the §7.6 bound. Without a working cache (off, or not hearing
 * changes) they are kept for UNHEARD_MS at most — a change made elsewhere shows within §7.6's 1 s —
 * and a change made here (a new generation) at once (generation-kept.ts). Measured at 100,000 items
 * with the cache off, reading them on every search cost 74 µs of the service's CPU per search (0.77 →
 * 0.83 of the floor).
 */
import type { SqlReader } from '../db/database.ts';
import { GenerationKept, type Generations } from './generation-kept.ts';
import { type SynonymIndex, synonymIndexOf } from './keyword.ts';

/** The one key the groups are kept under. */
const GROUPS = {};

export class SynonymIndexCache {
  /** The index, and the rows it was made of. */
  readonly #kept: GenerationKept<typeof GROUPS, { rows: string; index: SynonymIndex }>;

  constructor(generations: Generations) {
    this.#kept = new GenerationKept(generations);
  }

  async get(sql: SqlReader): Promise<SynonymIndex> {
    const kept = await this.#kept.get(GROUPS, async (previous) => {
      const rows = await sql.query<{ terms: string[] }>('SELECT terms FROM synonym_groups ORDER BY id', [], {
        prepare: true,
      });
      // Unchanged groups keep their index object, so what is compiled against it (keyword.ts
      // compiledKeyword) is reused.
      const key = JSON.stringify(rows);
      return { rows: key, index: previous?.rows === key ? previous.index : synonymIndexOf(rows.map((r) => r.terms)) };
    });
    return kept.index;
  }
}
