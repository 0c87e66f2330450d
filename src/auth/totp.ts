/**
 * Two-factor login for admins (contract §10.3): RFC 6238 codes (6 digits, 30 s, ±1 step) with otplib,
 * and the replay rule — a code accepted once is never accepted again for that admin in its step —
 * kept in the database (`totp_last_step`, a conditional update), so every worker and every instance
 * sees it at once. Recovery codes are random, shown once, stored as SHA-256 and spent by a
 * conditional update (each works once, also under parallel logins).
 */
import { createHash, randomInt } from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';
import QRCode from 'qrcode';
import type { Db } from './session-guard.ts';

const RECOVERY_CODE_COUNT = 10;
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789'; // no 0/o, 1/l/i to misread

export const newTotpSecret = (): string => generateSecret();

/** The `otpauth://` URI an authenticator app scans; `issuer` (SHOP_NAME) is how the app labels the entry. */
export const otpauthUri = (secret: string, username: string, issuer: string): string =>
  generateURI({ issuer, label: username, secret });

/** The URI as an SVG QR code, for an authenticator app to scan. */
export const qrSvg = (uri: string): Promise<string> => QRCode.toString(uri, { type: 'svg', margin: 1 });

export const isTotpCode = (code: string): boolean => /^\d{6}$/.test(code);

/** The time step a code is valid for (now, or one step either side), else undefined. */
async function stepOf(secret: string, code: string): Promise<number | undefined> {
  if (!isTotpCode(code)) return undefined;
  const result = await verify({ secret, token: code, epochTolerance: 30 });
  // A TOTP verification reports the step it matched (otplib's result type is shared with HOTP's).
  return result.valid ? (result as { timeStep: number }).timeStep : undefined;
}

/**
 * Accepts `code` for `adminId` at most once: valid for the secret and of a later step than any code
 * accepted before (at confirmation or a login). True when accepted.
 */
export async function acceptTotpCode(db: Db, adminId: number, secret: string, code: string): Promise<boolean> {
  const step = await stepOf(secret, code);
  if (step === undefined) return false;
  const { count } = await db.admin.updateMany({
    where: { id: adminId, OR: [{ totpLastStep: null }, { totpLastStep: { lt: step } }] },
    data: { totpLastStep: step },
  });
  return count === 1;
}

const normaliseRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, '');
const hashRecoveryCode = (code: string) => createHash('sha256').update(normaliseRecoveryCode(code)).digest('hex');

/** Ten new recovery codes (`xxxxx-xxxxx`) and their hashes. */
export function newRecoveryCodes(): { codes: string[]; hashes: string[] } {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
  return { codes, hashes: codes.map(hashRecoveryCode) };
}

/** Spends one unused recovery code of `adminId`; true when it was one. */
export async function spendRecoveryCode(db: Db, adminId: number, code: string): Promise<boolean> {
  if (code.length > 64) return false;
  const { count } = await db.adminRecoveryCode.updateMany({
    where: { adminId, codeHash: hashRecoveryCode(code), usedAt: null },
    data: { usedAt: new Date() },
  });
  return count === 1;
}

/** A one-time code or a recovery code for `adminId` with two-factor `secret`: true when accepted (once). */
export async function acceptSecondFactor(db: Db, adminId: number, secret: string, code: string): Promise<boolean> {
  return isTotpCode(code) ? acceptTotpCode(db, adminId, secret, code) : spendRecoveryCode(db, adminId, code);
}
