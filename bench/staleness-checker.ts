/**
 * One instance's side of the `mixed` scenario's staleness check (bench/staleness.ts runs it): after
 * each write's answer it reads the item (`GET /api/v1/items/{id}`, the URL the load reads) on the
 * instance every `pollMs` until the name shows that write or a later one. One poll loop per item.
 *
 * A write's staleness on an instance is 0 when the first read sent after the write's answer shows
 * it; else the time from the write's answer to the answer of the first read that shows it — an
 * upper bound, at most one poll interval plus one read's latency above the truth. The matching lower
 * bound is the time to the sending of the last read that did not show it.
 */

export interface InstanceStaleness {
  name: string;
  /** Writes seen on this instance; of them, how many were seen stale first. */
  writes_seen: number;
  writes_stale: number;
  /** Writes not seen within giveUpMs. */
  writes_unseen: number;
  /** Largest staleness (upper bound) and the largest lower bound, ms. */
  max_ms: number;
  max_lower_ms: number;
  p50_ms: number;
  p99_ms: number;
  reads: number;
  read_errors: number;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
export const round1 = (x: number) => Math.round(x * 10) / 10;
export const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

interface Pending {
  n: number;
  answeredAt: number;
  lastStaleSent?: number;
}

export class Checker {
  private readonly pending = new Map<number, Pending[]>();
  private readonly loops = new Set<Promise<void>>();
  private readonly upper: number[] = [];
  private readonly lower: number[] = [];
  private stale = 0;
  private unseen = 0;
  private reads = 0;
  private readErrors = 0;

  constructor(
    private readonly name: string,
    private readonly url: string,
    private readonly job: { namePrefix: string; pollMs: number; giveUpMs: number },
  ) {}

  add(id: number, n: number, answeredAt: number): void {
    const list = this.pending.get(id);
    if (list) return void list.push({ n, answeredAt });
    this.pending.set(id, [{ n, answeredAt }]);
    const loop = this.watch(id).finally(() => this.loops.delete(loop));
    this.loops.add(loop);
  }

  /** Which write the instance shows for `id`: n, -1 for a name not written in this run, undefined on failure. */
  private async shown(id: number): Promise<number | undefined> {
    this.reads++;
    try {
      const res = await fetch(`${this.url}/api/v1/items/${id}`);
      const body = (await res.json()) as { name?: unknown };
      if (res.status !== 200 || typeof body.name !== 'string') throw new Error(String(res.status));
      return body.name.startsWith(this.job.namePrefix) ? Number(body.name.slice(this.job.namePrefix.length)) : -1;
    } catch {
      this.readErrors++;
      return undefined;
    }
  }

  private async watch(id: number): Promise<void> {
    const list = this.pending.get(id)!;
    while (list.length) {
      const sent = performance.now();
      const shown = await this.shown(id);
      const answered = performance.now();
      for (const p of [...list]) {
        if (sent < p.answeredAt) continue; // sent before the write's answer: says nothing about it
        const done = (upper: number, lower: number) => {
          this.upper.push(upper);
          this.lower.push(lower);
          list.splice(list.indexOf(p), 1);
        };
        if (shown !== undefined && shown >= p.n) {
          if (p.lastStaleSent === undefined) done(0, 0);
          else {
            this.stale++;
            done(answered - p.answeredAt, p.lastStaleSent - p.answeredAt);
          }
        } else if (answered - p.answeredAt > this.job.giveUpMs) {
          this.unseen++;
          list.splice(list.indexOf(p), 1);
        } else if (shown !== undefined) p.lastStaleSent = sent;
      }
      if (list.length) await sleep(this.job.pollMs);
    }
    this.pending.delete(id);
  }

  async result(): Promise<InstanceStaleness> {
    while (this.loops.size) await Promise.all([...this.loops]);
    const upper = [...this.upper].sort((a, b) => a - b);
    return {
      name: this.name,
      writes_seen: upper.length,
      writes_stale: this.stale,
      writes_unseen: this.unseen,
      max_ms: round1(upper.at(-1) ?? 0),
      max_lower_ms: round1(Math.max(0, ...this.lower)),
      p50_ms: round1(pct(upper, 50)),
      p99_ms: round1(pct(upper, 99)),
      reads: this.reads,
      read_errors: this.readErrors,
    };
  }
}
