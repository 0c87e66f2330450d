/**
 * jieba's dictionary segmentation — `cut(text, false)` of jieba-rs 0.10 (what @node-rs/jieba 2.0.3
 * runs): dictionary DAG + maximum-probability route, no HMM — in TypeScript, over a compact copy of
 * the dictionary.
 *
 * Why not the native addon: jieba-rs keeps its 349,045 words as a cedar trie plus a record per word
 * (frequency, its log, a boxed tag). Measured with `node --expose-gc`, after gc: the addon +5 MB RSS,
 * `Jieba.withDict(dict.txt)` +36 MB RSS, in every serving process. Here the same dictionary is 4.2 MB
 * of typed arrays (external +4.3 MB, heapUsed +0.2 MB; RSS +8–11 MB right after the load, the rest
 * being freed load-time pages the process keeps for reuse); loading takes ~130 ms of CPU, about what
 * jieba-rs takes:
 *
 * - `units`: the UTF-16 code units of every word, one after the other, the words in code-unit order;
 * - `starts`: where each word begins in `units` (word `w` is `units[starts[w] .. starts[w + 1]]`);
 * - `firstUnit`: the words beginning with code unit `c` are `firstUnit[c] .. firstUnit[c + 1]`;
 * - `logProbIndex` → `logProbs`: each word's `ln(freq) − ln(total)`, stored once per distinct
 *   frequency (5,087 of them) instead of once per word.
 *
 * Sorted words make the DAG a trie walk without a trie: the words sharing the prefix read so far
 * are a contiguous range, narrowed by two binary searches per further character; the word equal to
 * that prefix, if any, is the first of the range (it sorts before its extensions). A hash table
 * would need more memory (its slots, plus a mark on every prefix to know when to stop extending) for
 * no need: this cuts a 20-character product name in ~1 µs (jieba-rs through N-API: ~2.5 µs).
 *
 * Exactness: the output equals jieba-rs's word for word (test/unit/jieba-dictionary.test.ts holds it
 * against @node-rs/jieba on every dictionary word and ~9,000 other texts). What that takes:
 * - routes are compared as Rust compares `(weight, end)` tuples: on an exact tie (ABA, with AB and BA
 *   equally frequent) the longer word wins;
 * - the logarithms are glibc's (what Rust's `f64::ln` calls; here computed correctly rounded, which
 *   glibc's are for every frequency in dict.txt), not V8's `Math.log`, which is 1 ulp off for 77 of
 *   the 5,087 frequencies (ln 3, ln 48, …). No input was found where that ulp changes the words
 *   (none of 7.3 million ABC texts with AB and BC words), but route weights are compared for
 *   equality, so their bits are kept jieba-rs's rather than trusted to be harmless;
 * - the text is split as jieba-rs splits it: blocks of CJK ideographs, ASCII letters and digits and
 *   `+#&._%-` are cut by the dictionary; any other character is a word of its own (`\r\n` one word),
 *   including Han-script characters jieba does not count as CJK (〇, 々, radicals, Extension G).
 */

import { isUtf8 } from 'node:buffer';

/** The dictionary, as compact as the cut allows. Built by `parseJiebaDictionary`. */
export interface JiebaDictionary {
  readonly units: Uint16Array;
  readonly starts: Uint32Array;
  readonly firstUnit: Uint32Array;
  readonly logProbIndex: Uint16Array | Uint32Array;
  readonly logProbs: Float64Array;
  /** `0 − ln(total)`: the weight of a character no word starts with (jieba-rs gives it frequency 1). */
  readonly unknownLogProb: number;
}

// ---------------------------------------------------------------------------------------------
// The natural logarithm, correctly rounded (as glibc's `log`, which jieba-rs's `f64::ln` calls).

/** ln 2 as a double-double: the nearest double, and the nearest double to what it leaves. */
const LN2_HI = Math.LN2; // 0x3FE62E42FEFA39EF
const LN2_LO = 2.3190468138462996e-17;
/** 2^27 + 1: splits a double into two 26-bit halves whose products are exact (Veltkamp). */
const SPLITTER = 134217729;

/** The rounding error of `a + b` (Knuth's TwoSum): `a + b === s + twoSumError(a, b, s)` exactly. */
const twoSumError = (a: number, b: number, s: number): number => {
  const bb = s - a;
  return a - (s - bb) + (b - bb);
};

/** The rounding error of `a * b` (Dekker's TwoProduct, no FMA in JS). */
function twoProductError(a: number, b: number, p: number): number {
  const ca = SPLITTER * a;
  const aHi = ca - (ca - a);
  const aLo = a - aHi;
  const cb = SPLITTER * b;
  const bHi = cb - (cb - b);
  const bLo = b - bHi;
  return aHi * bHi - p + aHi * bLo + aLo * bHi + aLo * bLo;
}

/** A double-double: `hi + lo`, |lo| ≤ half an ulp of hi — ~106 bits, enough to round ln correctly. */
type DoubleDouble = readonly [hi: number, lo: number];

const normalised = (hi: number, lo: number): DoubleDouble => {
  const s = hi + lo;
  return [s, lo - (s - hi)];
};

function add([ah, al]: DoubleDouble, [bh, bl]: DoubleDouble): DoubleDouble {
  const s = ah + bh;
  const t = al + bl;
  const [s1, s2] = normalised(s, twoSumError(ah, bh, s) + t);
  return normalised(s1, s2 + twoSumError(al, bl, t));
}

function multiply([ah, al]: DoubleDouble, [bh, bl]: DoubleDouble): DoubleDouble {
  const p = ah * bh;
  return normalised(p, twoProductError(ah, bh, p) + (ah * bl + al * bh));
}

/** `a / d` for a double `d`: a first quotient, then the quotient of what it leaves. */
function divide([ah, al]: DoubleDouble, d: number): DoubleDouble {
  const q1 = ah / d;
  const p = q1 * d;
  const pErr = twoProductError(q1, d, p);
  const s = ah - p;
  const e = twoSumError(ah, -p, s) - pErr + al;
  return normalised(q1, (s + e) / d);
}

/** `a / b` for double-doubles: three quotient digits (as the QD library does). */
function divideBy(a: DoubleDouble, b: DoubleDouble): DoubleDouble {
  const q1 = a[0] / b[0];
  let r = add(a, multiply(b, [-q1, 0]));
  const q2 = r[0] / b[0];
  r = add(r, multiply(b, [-q2, 0]));
  const q3 = r[0] / b[0];
  return add(normalised(q1, q2), [q3, 0]);
}

const exponentView = new DataView(new ArrayBuffer(8));

/**
 * ln(x) for a finite x ≥ 0, correctly rounded: x = m·2^k with m in [√½, √2), ln m = 2·atanh(t) with
 * t = (m−1)/(m+1), |t| ≤ 0.172, summed in double-double until the terms stop counting. Checked equal
 * to glibc 2.36's `log` for every frequency in dict.txt and for 1 … 200,000 but 4 (9170, 136837,
 * 141614, 147674), where glibc is the one 1 ulp off (it promises < 0.52 ulp, not correct rounding).
 * `Math.log` is not enough: V8's is 1 ulp off far more often (2,027 of those 205,088 numbers).
 */
export function correctlyRoundedLn(x: number): number {
  if (x === 0) return Number.NEGATIVE_INFINITY;
  if (!(x > 0) || x === Number.POSITIVE_INFINITY) return Math.log(x);
  if (x === 1) return 0;
  // Subnormals (never a frequency) scaled into the normal range first.
  const scale = x < 2 ** -1022 ? 54 : 0;
  exponentView.setFloat64(0, x * 2 ** scale);
  let k = ((exponentView.getUint16(0) >>> 4) & 0x7ff) - 1023;
  let m = (x * 2 ** scale) / 2 ** k;
  k -= scale;
  if (m > Math.SQRT2) {
    m /= 2;
    k += 1;
  }
  const denominator = m + 1;
  const t = divideBy([m - 1, 0], [denominator, twoSumError(m, 1, denominator)]);
  const t2 = multiply(t, t);
  let sum = t;
  let power = t;
  for (let n = 3; ; n += 2) {
    power = multiply(power, t2);
    const term = divide(power, n);
    sum = add(sum, term);
    if (Math.abs(term[0]) <= Math.abs(sum[0]) * 2 ** -110) break;
  }
  const kLn2Hi = k * LN2_HI;
  const kLn2: DoubleDouble = normalised(kLn2Hi, twoProductError(k, LN2_HI, kLn2Hi) + k * LN2_LO);
  return add(kLn2, [2 * sum[0], 2 * sum[1]])[0];
}

// ---------------------------------------------------------------------------------------------
// Loading dict.txt: one `word freq tag` per line, read as jieba-rs's `load_dict` reads it. Read from
// the file's bytes (a Buffer, outside the JS heap), not from a string of it: the string would be a
// 6 MB object in the JS heap for the length of the load.

/** Rust's `char::is_whitespace` (Unicode White_Space): what `split_whitespace` splits a line at. */
export function isRustWhitespace(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) ||
    c === 0x20 ||
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/** The byte length of the UTF-8 sequence that `lead` starts. */
const sequenceLength = (lead: number): number => (lead < 0x80 ? 1 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4);

/** The code point whose UTF-8 sequence starts at `bytes[i]` (valid UTF-8: checked before reading). */
function codePointAt(bytes: Uint8Array, i: number): number {
  const lead = bytes[i]!;
  if (lead < 0x80) return lead;
  if (lead < 0xe0) return ((lead & 0x1f) << 6) | (bytes[i + 1]! & 0x3f);
  if (lead < 0xf0) return ((lead & 0x0f) << 12) | ((bytes[i + 1]! & 0x3f) << 6) | (bytes[i + 2]! & 0x3f);
  return (
    ((lead & 0x07) << 18) | ((bytes[i + 1]! & 0x3f) << 12) | ((bytes[i + 2]! & 0x3f) << 6) | (bytes[i + 3]! & 0x3f)
  );
}

/** A code point's first UTF-16 code unit: what orders it among code units. */
const firstCodeUnit = (c: number): number => (c < 0x10000 ? c : 0xd800 + ((c - 0x10000) >> 10));

/**
 * Rust's `usize::from_str` on `bytes[from, to)`: an optional `+`, then ASCII digits only; anything
 * else fails the whole load, as in jieba-rs.
 */
function parseFrequency(bytes: Uint8Array, from: number, to: number, lineNo: number): number {
  let i = bytes[from] === 0x2b ? from + 1 : from;
  if (i >= to) throw invalidFrequency(bytes, from, to, lineNo);
  let value = 0;
  for (; i < to; i++) {
    const digit = bytes[i]! - 0x30;
    if (digit < 0 || digit > 9) throw invalidFrequency(bytes, from, to, lineNo);
    value = value * 10 + digit;
  }
  // jieba-rs takes up to 2^64 − 1; beyond 2^53 a double would round it and the sums: refused instead.
  if (value > Number.MAX_SAFE_INTEGER) throw invalidFrequency(bytes, from, to, lineNo);
  return value;
}

const invalidFrequency = (bytes: Uint8Array, from: number, to: number, lineNo: number) =>
  new Error(
    `jieba dictionary line ${lineNo}: frequency ${new TextDecoder().decode(bytes.subarray(from, to))} is not an integer`,
  );

/** Called with each entry of a dict.txt, in file order: the word is the UTF-8 `bytes[from, to)`. */
type EntryVisitor = (from: number, to: number, freq: number) => void;

/**
 * jieba-rs's `load_dict` reading: lines split at `\n`, each split at whitespace; the first token is
 * the word, the second its frequency (0 when there is none), the rest (the tag) unused; a line
 * without tokens is skipped. Nothing is allocated per line.
 */
function forEachEntry(bytes: Uint8Array, visit: EntryVisitor): void {
  const skip = (i: number, end: number, whitespace: boolean) => {
    while (i < end && isRustWhitespace(codePointAt(bytes, i)) === whitespace) i += sequenceLength(bytes[i]!);
    return i;
  };
  let lineNo = 0;
  for (let lineStart = 0; lineStart < bytes.length; ) {
    // Not `bytes.indexOf`: on a Buffer that is Node's own, a call into C++ each time (3× the load).
    let lineEnd = lineStart;
    while (lineEnd < bytes.length && bytes[lineEnd] !== 0x0a) lineEnd++;
    lineNo++;
    const wordFrom = skip(lineStart, lineEnd, true);
    if (wordFrom < lineEnd) {
      const wordTo = skip(wordFrom, lineEnd, false);
      const freqFrom = skip(wordTo, lineEnd, true);
      const freq = freqFrom < lineEnd ? parseFrequency(bytes, freqFrom, skip(freqFrom, lineEnd, false), lineNo) : 0;
      visit(wordFrom, wordTo, freq);
    }
    lineStart = lineEnd + 1;
  }
}

/** Compares two UTF-8 words by their UTF-16 code units (the order the cut's binary search walks). */
function compareWords(bytes: Uint8Array, a: number, aEnd: number, b: number, bEnd: number): number {
  const n = Math.min(aEnd - a, bEnd - b);
  let i = 0;
  while (i < n && bytes[a + i] === bytes[b + i]) i++;
  if (i === n) return aEnd - a - (bEnd - b);
  // Back to the start of the differing characters (at the same offset in both: the bytes before match).
  while ((bytes[a + i]! & 0xc0) === 0x80) i--;
  const x = codePointAt(bytes, a + i);
  const y = codePointAt(bytes, b + i);
  // UTF-8 orders by code point; UTF-16 puts U+10000… (surrogates, D800–DFFF) before U+E000–U+FFFF.
  return firstCodeUnit(x) - firstCodeUnit(y) || x - y;
}

/** How many UTF-16 code units the UTF-8 `bytes[from, to)` take. */
function codeUnitCount(bytes: Uint8Array, from: number, to: number): number {
  let count = 0;
  for (let i = from; i < to; i += sequenceLength(bytes[i]!)) count += bytes[i]! >= 0xf0 ? 2 : 1;
  return count;
}

/**
 * Each distinct frequency's index, in an open-addressing table of typed arrays. Not a `Map`: measured,
 * `Map.get` on the 349,045 number keys made garbage enough for 12 scavenges during the load, and left
 * the young generation (so the RSS) 4 MB bigger for good.
 */
class FrequencyIndex {
  readonly freqs: number[] = [];
  private keys = new Float64Array(1024).fill(-1);
  private indices = new Int32Array(1024);

  indexOf(freq: number): number {
    const mask = this.keys.length - 1;
    // Frequencies are integers below 2^53: fold the high bits in, then multiplicative hashing.
    let slot = Math.imul((freq % 0x100000000) ^ (freq / 0x100000000), 0x9e3779b1) & mask;
    for (; this.keys[slot] !== -1; slot = (slot + 1) & mask) {
      if (this.keys[slot] === freq) return this.indices[slot]!;
    }
    const index = this.freqs.push(freq) - 1;
    this.keys[slot] = freq;
    this.indices[slot] = index;
    if (this.freqs.length * 2 > this.keys.length) this.grow();
    return index;
  }

  private grow(): void {
    const freqs = this.freqs.splice(0);
    this.keys = new Float64Array(this.keys.length * 2).fill(-1);
    this.indices = new Int32Array(this.keys.length);
    for (const freq of freqs) this.indexOf(freq);
  }
}

/**
 * The dictionary's arrays, filled from `replay`, which visits `count` distinct words (`unitCount`
 * UTF-16 code units in all) in code-unit order.
 */
function build(
  bytes: Uint8Array,
  count: number,
  unitCount: number,
  replay: (visit: EntryVisitor) => void,
): JiebaDictionary {
  const units = new Uint16Array(unitCount);
  const starts = new Uint32Array(count + 1);
  const firstUnit = new Uint32Array(0x10001);
  let logProbIndex: Uint16Array | Uint32Array = new Uint16Array(count);
  const frequencies = new FrequencyIndex();
  let w = 0;
  let u = 0;
  // jieba-rs: the sum of the frequencies of the distinct words (a word's last line counts).
  let total = 0;
  replay((from, to, freq) => {
    for (let i = from; i < to; i += sequenceLength(bytes[i]!)) {
      const c = codePointAt(bytes, i);
      if (c < 0x10000) units[u++] = c;
      else {
        units[u++] = firstCodeUnit(c);
        units[u++] = 0xdc00 + ((c - 0x10000) & 0x3ff);
      }
    }
    firstUnit[units[starts[w]!]! + 1]!++;
    starts[++w] = u;
    const index = frequencies.indexOf(freq);
    if (index > 0xffff && logProbIndex instanceof Uint16Array) logProbIndex = Uint32Array.from(logProbIndex);
    logProbIndex[w - 1] = index;
    total += freq;
  });
  for (let c = 0; c < 0x10000; c++) firstUnit[c + 1]! += firstUnit[c]!;
  // jieba-rs: log_freq = ln(freq), then `log_freq - logtotal` per edge — the same two roundings here.
  const lnTotal = correctlyRoundedLn(total);
  return {
    units,
    starts,
    firstUnit,
    logProbIndex,
    logProbs: Float64Array.from(frequencies.freqs, (freq) => correctlyRoundedLn(freq) - lnTotal),
    unknownLogProb: 0 - lnTotal,
  };
}

/**
 * Any other dictionary: sorted, and for a word listed twice its last line kept (jieba-rs keeps one
 * record per word, and a later line sets its frequency).
 */
function buildFromUnsorted(bytes: Uint8Array): JiebaDictionary {
  const from: number[] = [];
  const to: number[] = [];
  const freq: number[] = [];
  forEachEntry(bytes, (f, t, n) => {
    from.push(f);
    to.push(t);
    freq.push(n);
  });
  const compare = (x: number, y: number) => compareWords(bytes, from[x]!, to[x]!, from[y]!, to[y]!);
  // Stable: equal words keep their file order, and the last of them is the one that counts.
  const order = from.map((_, i) => i).sort(compare);
  const lines = order.filter((line, i) => i + 1 === order.length || compare(line, order[i + 1]!) !== 0);
  const unitCount = lines.reduce((sum, line) => sum + codeUnitCount(bytes, from[line]!, to[line]!), 0);
  return build(bytes, lines.length, unitCount, (visit) => {
    for (const line of lines) visit(from[line]!, to[line]!, freq[line]!);
  });
}

/**
 * The dictionary from the bytes of a jieba dict.txt (UTF-8, as jieba-rs requires): ~130 ms of CPU for
 * the 5 MB file. dict.txt comes sorted by code unit and without repeats, so it is read twice (to count
 * and check the order, then to fill the arrays) rather than held in per-line arrays and sorted.
 */
export function parseJiebaDictionary(bytes: Uint8Array): JiebaDictionary {
  if (!isUtf8(bytes)) throw new Error('jieba dictionary: not UTF-8');
  let count = 0;
  let unitCount = 0;
  let previousFrom = 0;
  let previousTo = -1;
  let sorted = true;
  forEachEntry(bytes, (from, to) => {
    if (sorted && previousTo >= 0) sorted = compareWords(bytes, previousFrom, previousTo, from, to) < 0;
    previousFrom = from;
    previousTo = to;
    count++;
    unitCount += codeUnitCount(bytes, from, to);
  });
  if (!sorted) return buildFromUnsorted(bytes);
  return build(bytes, count, unitCount, (visit) => forEachEntry(bytes, visit));
}

// ---------------------------------------------------------------------------------------------
// The cut.

/** jieba-rs's RE_HAN_DEFAULT: what a block is made of — CJK ideographs, ASCII alphanumerics, `+#&._%-`. */
export function isBlockCodePoint(c: number): boolean {
  if (c < 0x80) {
    return (
      (c >= 0x30 && c <= 0x39) ||
      (c >= 0x41 && c <= 0x5a) ||
      (c >= 0x61 && c <= 0x7a) ||
      c === 0x2b || // +
      c === 0x23 || // #
      c === 0x26 || // &
      c === 0x2e || // .
      c === 0x5f || // _
      c === 0x25 || // %
      c === 0x2d // -
    );
  }
  return (
    (c >= 0x3400 && c <= 0x4dbf) ||
    (c >= 0x4e00 && c <= 0x9fff) ||
    (c >= 0xf900 && c <= 0xfaff) ||
    (c >= 0x20000 && c <= 0x2a6df) ||
    (c >= 0x2a700 && c <= 0x2ebef) || // Extensions C, D, E, F (contiguous)
    (c >= 0x2f800 && c <= 0x2fa1f)
  );
}

const isAsciiAlphanumeric = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

/** The first word in `[lo, hi)` whose code unit at `k` is ≥ `c` (every word there is longer than `k`). */
function firstAtLeast(units: Uint16Array, starts: Uint32Array, lo: number, hi: number, k: number, c: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (units[starts[mid]! + k]! < c) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Per-block scratch, reused across calls (the cut is synchronous): each character's best weight to the
 * block's end and its next stop. Blocks longer than this get arrays of their own, so that one long
 * text does not leave big arrays behind for good.
 */
const SCRATCH_LENGTH = 4096;
const scratchWeight = new Float64Array(SCRATCH_LENGTH + 1);
const scratchNext = new Int32Array(SCRATCH_LENGTH + 1);

/**
 * jieba-rs's `dag` + `calc`: from the block's end back to its start, each character's best route to
 * the end — the max over the dictionary words starting there of `(logProb + weight[end], end)`, the
 * pairs compared as Rust compares tuples (so on equal weight the longer word wins; `max_by` keeps the
 * later of equal pairs, which only NaN could make). A character no word starts with steps over itself
 * alone, with frequency 1. A word of frequency 0 is an edge too, of weight −∞, as in jieba-rs.
 */
function planRoute(dictionary: JiebaDictionary, text: string, from: number, to: number): Int32Array {
  const { units, starts, firstUnit, logProbIndex, logProbs, unknownLogProb } = dictionary;
  const long = to - from > SCRATCH_LENGTH;
  const routeWeight = long ? new Float64Array(to - from + 1) : scratchWeight;
  const routeNext = long ? new Int32Array(to - from + 1) : scratchNext;
  routeWeight[to - from] = 0;
  routeNext[to - from] = to;
  let next = to;
  while (next > from) {
    // Step back one code point (a surrogate pair is one character to jieba).
    let at = next - 1;
    const unit = text.charCodeAt(at);
    if (unit >= 0xdc00 && unit <= 0xdfff && at > from) {
      const lead = text.charCodeAt(at - 1);
      if (lead >= 0xd800 && lead <= 0xdbff) at--;
    }

    let bestWeight = Number.NEGATIVE_INFINITY;
    let bestEnd = -1;
    // The trie walk: [lo, hi) holds the words that begin with text[at .. at + k).
    let lo = firstUnit[text.charCodeAt(at)]!;
    let hi = firstUnit[text.charCodeAt(at) + 1]!;
    for (let k = 1; lo < hi; k++) {
      if (starts[lo + 1]! - starts[lo]! === k) {
        const end = at + k;
        const weight = logProbs[logProbIndex[lo]!]! + routeWeight[end - from]!;
        // Rust: `max_by(|x, y| x.partial_cmp(y).unwrap_or(Equal))` over (weight, end) pairs.
        if (bestEnd === -1 || !(bestWeight > weight || (bestWeight === weight && bestEnd > end))) {
          bestWeight = weight;
          bestEnd = end;
        }
        lo++;
      }
      if (lo >= hi || at + k >= to) break;
      const c = text.charCodeAt(at + k);
      lo = firstAtLeast(units, starts, lo, hi, k, c);
      hi = firstAtLeast(units, starts, lo, hi, k, c + 1);
    }
    if (bestEnd === -1) {
      bestWeight = unknownLogProb + routeWeight[next - from]!;
      bestEnd = next;
    }
    routeWeight[at - from] = bestWeight;
    routeNext[at - from] = bestEnd;
    next = at;
  }
  return routeNext;
}

/**
 * jieba-rs's `cut_dag_no_hmm` on one block: the route's words, except that runs of single ASCII
 * letters and digits the dictionary left alone come out joined (`iPhone15`, not `i` `P` …).
 */
function cutBlock(dictionary: JiebaDictionary, text: string, from: number, to: number, words: string[]): void {
  const routeNext = planRoute(dictionary, text, from, to);
  let pending = -1;
  for (let x = from; x < to; ) {
    const y = routeNext[x - from]!;
    if (y - x === 1 && isAsciiAlphanumeric(text.charCodeAt(x))) {
      if (pending === -1) pending = x;
    } else {
      if (pending !== -1) {
        words.push(text.slice(pending, x));
        pending = -1;
      }
      words.push(text.slice(x, y));
    }
    x = y;
  }
  if (pending !== -1) words.push(text.slice(pending, to));
}

/**
 * `text` cut into words exactly as jieba-rs's `cut(text, false)` (HMM off) cuts it with the same
 * dictionary. Lone surrogates come back as U+FFFD, as they do from @node-rs/jieba (its UTF-8
 * conversion replaces them).
 */
export function cutWithoutHmm(dictionary: JiebaDictionary, input: string): string[] {
  const text = input.isWellFormed() ? input : input.toWellFormed();
  const words: string[] = [];
  for (let i = 0; i < text.length; ) {
    const c = text.codePointAt(i)!;
    const width = c > 0xffff ? 2 : 1;
    if (isBlockCodePoint(c)) {
      let end = i + width;
      while (end < text.length) {
        const d = text.codePointAt(end)!;
        if (!isBlockCodePoint(d)) break;
        end += d > 0xffff ? 2 : 1;
      }
      cutBlock(dictionary, text, i, end, words);
      i = end;
    } else if (c === 0x0d && text.charCodeAt(i + 1) === 0x0a) {
      words.push('\r\n');
      i += 2;
    } else {
      words.push(text.slice(i, i + width));
      i += width;
    }
  }
  return words;
}
