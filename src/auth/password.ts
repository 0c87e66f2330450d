/**
 * Password hashing with argon2id at OWASP's recommended cost (19 MiB, 2 passes, 1 lane).
 * `verifyPassword` against `DUMMY_HASH` lets unknown users cost as much as wrong passwords.
 */
import { hash, verify } from '@node-rs/argon2';

// `algorithm: 2` is Argon2id (the package exports it as a const enum, which isolated modules cannot read).
const OPTIONS = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/** Verifies `password` against `stored`; a missing hash is checked against a dummy so timing stays flat. */
export async function verifyPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  const ok = await verify(stored ?? (await dummyHash()), password).catch(() => false);
  return ok && Boolean(stored);
}

let dummy: Promise<string> | undefined;
/**
 * A real hash of a random string with the same parameters, computed once per process. Start-up calls
 * it, so that not even the first unknown-user login pays for an extra hash.
 */
export function dummyHash(): Promise<string> {
  return (dummy ??= hash(`dummy-${Math.random()}`, OPTIONS));
}
