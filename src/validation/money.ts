/**
 * Money input (contract §1): a JSON number or a decimal string, >= 0, <= 99999999.99, at most two
 * fractional digits. Amounts are checked and normalised as text — never through float arithmetic —
 * and leave as a canonical decimal string ("19.90") that NUMERIC(10,2) stores exactly.
 */
import { z } from 'zod';

export const MONEY_MAX = '99999999.99';

/** What resolvers may return for the Money scalar: Prisma's Decimal, or a number / decimal string. */
export type MoneyOutput = number | string | { toFixed(digits: number): string };

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** The canonical decimal string of `value`, or the problem with it. */
export function parseMoney(value: unknown): { ok: true; value: string } | { ok: false; message: string } {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { ok: false, message: 'must be a finite number' };
    // The shortest text that reads back as this double: 19.9 → "19.9", 0.1 + 0.2 → "0.30000000000000004".
    text = String(value);
    if (/e/i.test(text)) {
      return Math.abs(value) >= 1 ? range(value < 0) : { ok: false, message: 'must have at most 2 fractional digits' };
    }
  } else if (typeof value === 'string') {
    text = value;
  } else {
    return { ok: false, message: 'must be a number or a decimal string' };
  }
  const m = DECIMAL.exec(text);
  if (!m) return { ok: false, message: 'must be a number or a decimal string' };
  const [, sign, intDigits = '', fracDigits = ''] = m;
  const whole = intDigits.replace(/^0+(?=\d)/, '');
  const fraction = fracDigits.replace(/0+$/, '');
  const isZero = /^0*$/.test(whole) && fraction === '';
  if (sign && !isZero) return range(true);
  if (fraction.length > 2) return { ok: false, message: 'must have at most 2 fractional digits' };
  if (whole.length > 8) return range(false);
  return { ok: true, value: `${whole}.${fraction.padEnd(2, '0')}` };
}

const range = (negative: boolean) =>
  ({ ok: false, message: negative ? 'must be >= 0' : `must be <= ${MONEY_MAX}` }) as const;

/** A money field: any input in, the canonical decimal string out (or one issue naming the rule). */
export const money = () =>
  z
    .unknown()
    .meta({
      description: `0..${MONEY_MAX} with at most 2 fractional digits, as a number or a decimal string`,
      anyOf: [{ type: 'number' }, { type: 'string', pattern: '^\\d{1,8}(\\.\\d{1,2})?$' }],
    })
    .transform((value, ctx) => {
      if (value === undefined) {
        ctx.addIssue({ code: 'custom', message: 'is required' });
        return z.NEVER;
      }
      const parsed = parseMoney(value);
      if (!parsed.ok) {
        ctx.addIssue({ code: 'custom', message: parsed.message });
        return z.NEVER;
      }
      return parsed.value;
    });
