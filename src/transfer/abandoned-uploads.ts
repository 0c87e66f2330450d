/**
 * Imports whose upload never finished (contract §13.2 is silent; an operator would expect this): the
 * file is staged as it arrives, before the import is queued, so a process that dies mid-upload leaves
 * an import `queued` for ever — no job will run it and its staged rows stay. Where background work
 * runs, a round looks for such imports — unstaged and not heard from (`upload_seen_at`, which a live
 * upload moves every few seconds: imports.service.ts) for IMPORT_UPLOAD_ABANDONED_AFTER — and ends
 * each `failed`, naming the first row that did not arrive (import-job.ts failNextAbandonedUpload).
 */
import type { Logger } from '../logger.ts';
import { type Rounds, startRounds } from '../process/rounds.ts';
import { failNextAbandonedUpload, type ImportRunner } from './import-job.ts';

/** How long a stop waits for a round under way (one short transaction per import it ends). */
const STOP_WAIT_MS = 1000;

export function startAbandonedUploadSweep(runner: ImportRunner, silentSeconds: number, log: Logger): Rounds {
  // A quarter of the silence allowed, between 1 s and a minute: an abandoned upload is ended within
  // about 1.25 × IMPORT_UPLOAD_ABANDONED_AFTER of its last byte.
  const everyMs = Math.min(60_000, Math.max(1000, (silentSeconds * 1000) / 4));
  return startRounds({
    run: async (stopped) => {
      while (!stopped()) {
        const id = await failNextAbandonedUpload(runner, silentSeconds);
        if (id === undefined) return;
        log.warn({ import_id: id }, 'import: its upload stopped before the file had arrived; ended as failed');
      }
    },
    gapMs: everyMs,
    pollMs: everyMs,
    stopWaitMs: STOP_WAIT_MS,
    log,
    what: 'abandoned uploads sweep',
    now: true,
  });
}
