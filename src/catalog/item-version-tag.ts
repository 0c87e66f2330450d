/**
 * An item's version as HTTP spells it (contract §12.2): every admin item answer carries
 * `ETag: "v<version>"`, and PATCH / DELETE take it back in `If-Match` — the version the write expects.
 */
import { validationFailed } from '../errors/app-error.ts';
import type { HeaderDoc, RestRequest } from '../rest/route.ts';
import { INT32_MAX } from '../validation/rules.ts';

/** `ETag` of an item answer (its body has `version`). */
export function versionTag(item: object): Record<string, string> {
  const { version } = item as { version?: unknown };
  return typeof version === 'number' ? { ETag: `"v${version}"` } : {};
}

/** The ETag header, as /docs shows it on an item answer. */
export const VERSION_TAG_HEADER = {
  description: 'The item\'s version, `"v<version>"`: send it back as `If-Match` to change or delete this version only.',
  schema: { type: 'string', example: '"v1"' },
};

const STRONG_TAG = /^"v([1-9]\d{0,9})"$/;

/**
 * The version `If-Match` expects: absent or `*` (any current version — the item must exist, as
 * without the header) → undefined; one strong tag `"v<version>"` → the version. Anything else — a
 * weak tag (`W/"v3"`: RFC 9110 compares If-Match strongly), a list, another spelling — is refused,
 * as a write guarded by a tag that can never match would fail in a way the client would not expect.
 */
export function expectedVersionOf(req: RestRequest): number | undefined {
  const raw = req.header('if-match')?.trim();
  if (raw === undefined || raw === '*') return undefined;
  const version = Number(STRONG_TAG.exec(raw)?.[1]);
  if (!Number.isInteger(version) || version > INT32_MAX) {
    throw validationFailed([{ field: 'If-Match', message: 'must be an ETag of this item, `"v<version>"`, or `*`' }]);
  }
  return version;
}

/** The If-Match header, as /docs shows it on PATCH and DELETE. */
export const IF_MATCH_HEADER: HeaderDoc = {
  name: 'If-Match',
  description:
    'Optional: `"v<version>"` from the item\'s `ETag` (or its `version`) — the write happens only while the item is ' +
    'still at that version, else 409 VERSION_CONFLICT naming the current one and nothing changes. `*` or no header: ' +
    'whatever the version. A weak tag (`W/…`), a list or any other value → 400 VALIDATION_FAILED on `If-Match`.',
  schema: { type: 'string', pattern: '^("v[1-9][0-9]*"|\\*)$' },
};
