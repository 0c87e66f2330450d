/**
 * One audit entry's `changes` ({ field: [before, after] }, contract §10.2) as a diff: a row per field
 * with its before and after, and the kind of change said in words (added, removed, changed) — not by
 * colour alone. Values are shown as the service stored them: secrets arrive as "[redacted]" and stay so.
 */
import { Trans, useLingui } from '@lingui/react/macro';

type Kind = 'added' | 'removed' | 'changed';

interface Row {
  field: string;
  before: unknown;
  after: unknown;
  kind: Kind;
}

const absent = (value: unknown) => value === null || value === undefined;

/** The entry's changes as rows, in the service's order; anything not a [before, after] pair is shown as after. */
export function changeRows(changes: unknown): Row[] {
  if (!changes || typeof changes !== 'object' || Array.isArray(changes)) return [];
  return Object.entries(changes as Record<string, unknown>).map(([field, pair]) => {
    const [before, after] = Array.isArray(pair) && pair.length === 2 ? pair : [undefined, pair];
    const kind: Kind =
      absent(before) && !absent(after) ? 'added' : !absent(before) && absent(after) ? 'removed' : 'changed';
    return { field, before, after, kind };
  });
}

function Value({ value }: { value: unknown }) {
  if (absent(value)) {
    return (
      <span className="muted">
        <Trans>(none)</Trans>
      </span>
    );
  }
  if (value === '[redacted]') {
    return (
      <span className="redacted">
        <Trans>[redacted]</Trans>
      </span>
    );
  }
  return <code className="change-value">{typeof value === 'string' ? value : JSON.stringify(value)}</code>;
}

export function ChangesTable({ changes, label }: { changes: unknown; label: string }) {
  const { t } = useLingui();
  const rows = changeRows(changes);
  if (rows.length === 0) {
    return (
      <p className="muted">
        <Trans>No field changed.</Trans>
      </p>
    );
  }
  const kindName: Record<Kind, string> = { added: t`Added`, removed: t`Removed`, changed: t`Changed` };
  const mark: Record<Kind, string> = { added: '+', removed: '−', changed: '~' };
  return (
    <table className="changes-table">
      <caption className="visually-hidden">{label}</caption>
      <thead>
        <tr>
          <th scope="col">
            <Trans>Field</Trans>
          </th>
          <th scope="col">
            <Trans>Change</Trans>
          </th>
          <th scope="col">
            <Trans>Before</Trans>
          </th>
          <th scope="col">
            <Trans>After</Trans>
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.field} className={`change-${row.kind}`}>
            <th scope="row">
              <code>{row.field}</code>
            </th>
            <td>
              <span className={`change-kind change-kind-${row.kind}`}>
                <span aria-hidden="true">{mark[row.kind]} </span>
                {kindName[row.kind]}
              </span>
            </td>
            <td>
              <Value value={row.before} />
            </td>
            <td>
              <Value value={row.after} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
