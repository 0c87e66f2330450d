/**
 * Password hashing with argon2id at OWASP's recommended cost (19 MiB, 2 passes, 1 lane). Verifying
 * an account without a password checks a dummy hash of the same cost, so unknown users cost as much
 * as wrong passwords (contract §3.1).
 *
 * The test suite (NODE_ENV=test, and only it) hashes at a far lower cost: thousands of logins and
 * accounts would otherwise spend most of the suite's CPU in argon2. Production never gets it —
 * NODE_ENV=production and development use OWASP's (test/auth/password-cost.test.ts holds both).
 */
import { hash, verify } from '@node-rs/argon2';
import type { PasswordCost } from '../config/config.ts';

// `algorithm: 2` is Argon2id (the package exports it as a const enum, which isolated modules cannot read).
const COSTS = {
  owasp: { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 },
  test: { algorithm: 2, memoryCost: 512, timeCost: 1, parallelism: 1 },
} as const;

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** Verifies `password` against `stored` (any cost); a missing hash is checked against a dummy so timing stays flat. */
  verify(stored: string | null | undefined, password: string): Promise<boolean>;
  /** Makes the dummy hash now, so that not even the first unknown-user login pays for an extra hash. */
  ready(): Promise<void>;
}

export function passwordHasher(cost: PasswordCost): PasswordHasher {
  const options = COSTS[cost];
  let dummy: Promise<string> | undefined;
  const dummyHash = () => (dummy ??= hash(`dummy-${Math.random()}`, options));
  return {
    hash: (password) => hash(password, options),
    async verify(stored, password) {
      const ok = await verify(stored ?? (await dummyHash()), password).catch(() => false);
      return ok && Boolean(stored);
    },
    ready: async () => void (await dummyHash()),
  };
}
