/**
 * What the REST runner needs of a cache for public reads: a domain (the catalogue) implements it and
 * hands it to the runner (app.ts), so the runner itself knows no domain.
 */
import type { PreparedBody } from '../http/prepared-body.ts';

/** Where public reads keep their answers between requests (contract §7.6). */
export interface AnswerCache {
  /** False while answers may be neither served nor stored (turned off, or deaf to changes). */
  readonly enabled: boolean;
  /** Changes with every invalidation: an answer is stored only under the generation its read began in. */
  readonly generation: number;
  /** The kept answer, if any (each lookup is counted as a hit or a miss). */
  answer(key: string): PreparedBody | undefined;
  storeAnswer(key: string, answer: PreparedBody, generation: number): void;
  /** `Cache-Control: public, max-age=N` on public reads; 0 sends `no-cache` (revalidate with the ETag). */
  readonly maxAgeSeconds: number;
}
