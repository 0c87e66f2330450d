/**
 * The signed-in admin's token (contract §15): in memory, mirrored to this tab's sessionStorage so a
 * reload keeps the session; never a cookie. An admin token is not refreshed: past its lifetime the
 * admin signs in again.
 */
const KEY = 'shop-admin.session';

interface Stored {
  token: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

let current: Stored | undefined = read();

function read(): Stored | undefined {
  try {
    const value = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Partial<Stored> | null;
    if (typeof value?.token === 'string' && typeof value.expiresAt === 'number') {
      return { token: value.token, expiresAt: value.expiresAt };
    }
  } catch {
    // Storage unavailable or not ours: no session.
  }
  return undefined;
}

export const session = {
  /** The token while it is unexpired, else undefined. */
  token(): string | undefined {
    if (current && current.expiresAt <= Date.now()) session.clear();
    return current?.token;
  },
  start(token: string, expiresInSeconds: number): void {
    current = { token, expiresAt: Date.now() + expiresInSeconds * 1000 };
    try {
      sessionStorage.setItem(KEY, JSON.stringify(current));
    } catch {
      // Memory only (a private window without storage): the session ends with the page.
    }
  },
  clear(): void {
    current = undefined;
    try {
      sessionStorage.removeItem(KEY);
    } catch {
      // Nothing stored.
    }
  },
};
