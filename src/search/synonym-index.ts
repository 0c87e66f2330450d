/**
 * The synonym groups search expands terms with (contract §9.4), read once per catalogue generation:
 * a change to the groups fires the catalogue's notification like any catalogue write, so every
 * instance reads them again within the §7.6 bound. Without a working cache (off, or not listening)
 * they are read per search — one small statement.
 */
import type { SqlReader } from '../db/database.ts';
import { type SynonymIndex, synonymIndexOf } from './keyword.ts';

/** What the index needs of the catalogue cache: whether it may keep anything, and under which generation. */
export interface Generations {
  readonly enabled: boolean;
  readonly generation: number;
}

export class SynonymIndexCache {
  #kept?: { generation: number; index: SynonymIndex };
  /** The last index read, and the rows it was made of: the same rows give the same index object. */
  #last?: { rows: string; index: SynonymIndex };

  constructor(private readonly generations: Generations) {}

  async get(sql: SqlReader): Promise<SynonymIndex> {
    const { enabled, generation } = this.generations;
    if (enabled && this.#kept?.generation === generation) return this.#kept.index;
    const rows = await sql.query<{ terms: string[] }>('SELECT terms FROM synonym_groups ORDER BY id', [], {
      prepare: true,
    });
    // With nothing kept (the cache off), every search reads the groups; unchanged groups keep their
    // index object, so what is compiled against it (keyword.ts compiledKeyword) is reused.
    const key = JSON.stringify(rows);
    const index = this.#last?.rows === key ? this.#last.index : synonymIndexOf(rows.map((r) => r.terms));
    this.#last = { rows: key, index };
    if (enabled) this.#kept = { generation, index };
    return index;
  }
}
