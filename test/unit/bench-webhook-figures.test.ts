/**
 * The `mixed_webhooks` figures (bench/mixed-webhooks.ts) from a receiver's record: commit → first
 * attempt over the run's events × webhooks, the backlog during the load, at its end and 2 s later.
 */
import { describe, expect, it } from 'vitest';
import { webhookFigures } from '../../bench/mixed-webhooks.ts';
import type { ReceiverRecord } from '../../bench/webhook-receiver.ts';

const T = 1_800_000_000_000;

/** Two webhooks, events 11..14 of the run (10 was there before it); webhook 1 gets event 14 late. */
const record: ReceiverRecord = {
  baseSeq: 10,
  hooks: [
    {
      requests: 5,
      bad_requests: 0,
      first: [
        [10, T - 5000, T - 4990, 'evt_10'], // before the run: not counted
        [11, T, T + 100, 'evt_11'],
        [12, T + 1000, T + 1200, 'evt_12'],
        [13, T + 2000, T + 2300, 'evt_13'],
        [14, T + 3000, T + 3400, 'evt_14'],
      ],
    },
    {
      requests: 6,
      bad_requests: 1,
      first: [
        [11, T, T + 50, 'evt_11'],
        [12, T + 1000, T + 1150, 'evt_12'],
        [13, T + 2000, T + 2250, 'evt_13'],
        [14, T + 3000, T + 6000, 'evt_14'],
      ],
    },
  ],
  samples: [
    { t: T + 1000, committed: 2, backlog: 1 },
    { t: T + 2000, committed: 3, backlog: 1 },
    { t: T + 3000, committed: 4, backlog: 2 },
    // the load's end at T + 3500
    { t: T + 3500, committed: 4, backlog: 1 },
    { t: T + 5500, committed: 4, backlog: 1 },
    { t: T + 6000, committed: 4, backlog: 0 },
  ],
  finishedAt: T + 3500,
};

describe('bench mixed_webhooks figures', () => {
  it('when every webhook got every event of the run, then the latencies span the run’s events × webhooks only', () => {
    const f = webhookFigures(record, 2);
    expect(f).toMatchObject({
      webhooks: 2,
      events: 4,
      attempts_expected: 8,
      first_attempts: 8,
      requests: 11,
      bad_requests: 1,
      commit_to_attempt_p50_ms: 200,
      commit_to_attempt_p99_ms: 3000,
      commit_to_attempt_max_ms: 3000,
    });
  });

  it('when the backlog is sampled, then its max, its value at the end and 2 s later, its drain and its trend over the load are reported', () => {
    const f = webhookFigures(record, 2);
    expect(f).toMatchObject({
      backlog_max: 2,
      backlog_end: 1,
      backlog_after_2s: 1,
      drained_ms: 2500,
      backlog_samples: [1, 1, 2],
    });
    expect(f.backlog_slope_per_s).toBe(0.5);
  });

  it('when an event never reached a webhook and the backlog never drained, then they show as missing and null', () => {
    const f = webhookFigures(
      {
        ...record,
        hooks: [record.hooks[0]!, { ...record.hooks[1]!, first: record.hooks[1]!.first.slice(0, 3) }],
        samples: record.samples.slice(0, 5),
      },
      2,
    );
    expect(f.first_attempts).toBe(7);
    expect(f.attempts_expected).toBe(8);
    expect(f.drained_ms).toBeNull();
  });
});
