/**
 * JWT secrets for development: generated once and kept in the data directory, so tokens survive
 * restarts without anyone having to invent a secret. Production must configure its own (config.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from './config.ts';

export interface JwtSecrets {
  customer: readonly string[];
  admin: readonly string[];
}

const FILE = 'jwt-secrets.json';

/** The configured secrets, or (outside production) ones generated into `<dataDir>/jwt-secrets.json`. */
export async function resolveJwtSecrets(config: Config): Promise<JwtSecrets> {
  const { customerSecrets, adminSecrets } = config.jwt;
  if (customerSecrets && adminSecrets) return { customer: customerSecrets, admin: adminSecrets };
  const stored = await loadOrCreate(config.dataDir);
  return { customer: customerSecrets ?? [stored.customer], admin: adminSecrets ?? [stored.admin] };
}

async function loadOrCreate(dataDir: string): Promise<{ customer: string; admin: string }> {
  const path = join(dataDir, FILE);
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as { customer?: unknown; admin?: unknown };
    if (typeof parsed.customer === 'string' && typeof parsed.admin === 'string') {
      return { customer: parsed.customer, admin: parsed.admin };
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const fresh = { customer: randomBytes(48).toString('base64url'), admin: randomBytes(48).toString('base64url') };
  await mkdir(dataDir, { recursive: true });
  try {
    // 'wx' fails if another process created the file meanwhile; mode 0600 keeps it private.
    await writeFile(path, `${JSON.stringify(fresh)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreate(dataDir);
    throw err;
  }
  return fresh;
}
