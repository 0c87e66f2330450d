/**
 * Text matched as a literal substring by `LIKE` / `ILIKE` (and Prisma's `contains`, which sends ILIKE
 * without escaping): `%`, `_` and `\` are the caller's characters, not wildcards (contract §4.1).
 */

/** `text` with LIKE's wildcards and its escape character (`\`, PostgreSQL's default) escaped. */
export const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A pattern matching any text that contains `text`. */
export const containsPattern = (text: string) => `%${likeLiteral(text)}%`;
