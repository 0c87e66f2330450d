/**
 * `node --import tsx bench/auth-cost.ts`: the CPU cost of the two operations that guard every login
 * and every authenticated request — one argon2id verify (OWASP parameters, as in src/auth/password.ts)
 * and one JWT verification (src/auth/token-system.ts). Sequential, one core; prints a small table.
 */
import { availableParallelism, cpus } from 'node:os';
import { passwordHasher } from '../src/auth/password.ts';
import { createTokenSystem } from '../src/auth/token-system.ts';

// Production's argon2id cost, as the service hashes.
const { hash: hashPassword, verify: verifyPassword } = passwordHasher('owasp');

interface Stats {
  n: number;
  mean: number;
  p50: number;
  p99: number;
}

async function time(n: number, fn: () => Promise<unknown>): Promise<Stats> {
  for (let i = 0; i < Math.min(10, n); i++) await fn(); // warm-up (JIT, dummy hash, key import)
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
  return { n, mean: samples.reduce((s, x) => s + x, 0) / n, p50: at(0.5), p99: at(0.99) };
}

const row = (name: string, s: Stats, unit: 'ms' | 'µs') => {
  const k = unit === 'ms' ? 1 : 1000;
  const f = (x: number) => (x * k).toFixed(unit === 'ms' ? 1 : 1);
  return `| ${name} | ${s.n} | ${f(s.mean)} ${unit} | ${f(s.p50)} ${unit} | ${f(s.p99)} ${unit} |`;
};

const password = 'correct horse battery staple';
const stored = await hashPassword(password);
const secret = 'customer-secret-for-bench-0123456789abcdef';
const tokens = createTokenSystem('customer', [secret], 7200);
const rotated = createTokenSystem('customer', ['a-newer-secret-for-rotation-0123456789abc', secret], 7200);
const { token } = await tokens.issue({ sub: '42', sid: crypto.randomUUID() });

const results = [
  row('argon2id verify, right password', await time(40, () => verifyPassword(stored, password)), 'ms'),
  row('argon2id verify, wrong password', await time(40, () => verifyPassword(stored, 'wrong')), 'ms'),
  row('argon2id verify, unknown user (dummy hash)', await time(40, () => verifyPassword(null, password)), 'ms'),
  row('argon2id hash (new password)', await time(20, () => hashPassword(password)), 'ms'),
  row('JWT verify (HS256, jose)', await time(20_000, () => tokens.verify(token)), 'µs'),
  row('JWT verify, token of the 2nd rotated secret', await time(20_000, () => rotated.verify(token)), 'µs'),
  row('JWT issue (HS256, jose)', await time(20_000, () => tokens.issue({ sub: '42', sid: crypto.randomUUID() })), 'µs'),
];
console.log(`node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} (${availableParallelism()} cores)\n`);
console.log('| operation | runs | mean | p50 | p99 |\n|---|---:|---:|---:|---:|');
console.log(results.join('\n'));
