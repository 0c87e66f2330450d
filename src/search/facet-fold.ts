/**
 * Folds the kept facet counts' pending deltas into the counts (prisma/migrations/
 * 20261210000000_kept_facet_counts): a catalogue write's triggers only append its deltas as plain rows
 * (search_facet_pending), so the count upserts are paid here, after commit, for many writes at once —
 * not in each write's transaction. The facets read counts + pending (search/facets.ts: keptFacets),
 * exact whenever a fold runs, so this only keeps the pending rows few.
 *
 * The same rounds as the webhook dispatch (process/rounds.ts): every process that runs background
 * work (runtime.ts `background`) folds when it hears a catalogue change, and once a second besides (a
 * notification missed, a write from elsewhere), at most one round per ROUND_GAP_MS; a round first
 * asks whether anything is pending.
 * `search_facets_fold` takes a lock of its own (one fold at a time across the deployment, never the
 * catalogue writes' lock): a write never waits for a fold.
 */
import type { SqlDriver } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { type Rounds, startRounds } from '../process/rounds.ts';

/** The round that runs without a notification. */
const POLL_MS = 1000;
/**
 * The least time from one round's start to the next: the writes of that time share one fold (fewer,
 * larger folds: an import of 10,000 new items took 15.6–17.0 s with 1 s, 17.3–23.2 s with 200 ms; the
 * reads scan the rows not folded yet, ~600 at an import's pace).
 */
const ROUND_GAP_MS = 1000;
/** How long a stop waits for a fold under way (one statement; a cut-off fold commits nothing). */
const STOP_WAIT_MS = 1000;

const ANYTHING_PENDING_SQL = 'SELECT EXISTS (SELECT FROM search_facet_pending) AS pending';

/** Folds soon (calls within ROUND_GAP_MS of a round's start share the next round). */
export type FacetFold = Rounds;

/** Folds every pending delta committed so far into the kept counts; returns how many rows it folded. */
export async function foldFacetCounts(sql: Pick<SqlDriver, 'queryUnbounded'>): Promise<number> {
  const [row] = await sql.queryUnbounded<{ folded: number }>('SELECT search_facets_fold() AS folded');
  return row?.folded ?? 0;
}

export function startFacetFold(sql: SqlDriver, log: Logger): FacetFold {
  return startRounds({
    run: async () => {
      const [check] = await sql.queryUnbounded<{ pending: boolean }>(ANYTHING_PENDING_SQL, [], { prepare: true });
      if (check?.pending) await foldFacetCounts(sql);
    },
    gapMs: ROUND_GAP_MS,
    pollMs: POLL_MS,
    stopWaitMs: STOP_WAIT_MS,
    log,
    // The facets stay exact meanwhile (they read the pending rows too); only their cost grows.
    what: 'folding facet counts',
  });
}
