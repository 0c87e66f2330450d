/**
 * Synonym groups (contract §9.4): the list, oldest first, each group's terms as the service stores
 * them (normalised); create, edit and delete for roles with catalogWrite. Terms are typed separated
 * by commas (`,` `，` `、`) or one per line.
 */
import { Plural, Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { ApiError, problemsByField } from '../../../gql/errors.ts';
import { request } from '../../../gql/request.ts';
import { ConfirmDialog } from '../../../ui/confirm-dialog.tsx';
import { FormDialog } from '../../../ui/form-dialog.tsx';
import { DeleteSynonymGroup, SaveSynonymGroup, SYNONYM_LIST_KEY, SynonymGroups } from './search.gql.ts';

/** The terms typed into the field: separated by commas (Latin or Chinese) or line breaks, trimmed. */
export const termsOf = (text: string): string[] =>
  text
    .split(/[,，、\n]/)
    .map((term) => term.trim())
    .filter(Boolean);

type Editing = { id: number | null; terms: string; seq: number; open: boolean };

export function SynonymGroupsSection({ canWrite, onChanged }: { canWrite: boolean; onChanged: () => void }) {
  const { t } = useLingui();
  const queryClient = useQueryClient();
  const headingId = useId();
  const [editing, setEditing] = useState<Editing | null>(null);
  const [deleting, setDeleting] = useState<{ id: number; label: string; open: boolean } | null>(null);
  const [announcement, setAnnouncement] = useState('');

  const groups = useQuery({
    queryKey: SYNONYM_LIST_KEY,
    queryFn: ({ signal }) => request(SynonymGroups, {}, signal),
  });

  const changed = async () => {
    await queryClient.invalidateQueries({ queryKey: SYNONYM_LIST_KEY });
    onChanged();
  };

  const save = useMutation({
    mutationFn: (vars: { id: number | null; terms: string[] }) => request(SaveSynonymGroup, vars),
    onSuccess: async ({ saveSynonymGroup }, vars) => {
      await changed();
      const label = saveSynonymGroup.terms.join(', ');
      setAnnouncement(vars.id === null ? t`Group created: ${label}.` : t`Group saved: ${label}.`);
      setEditing((e) => (e ? { ...e, open: false } : e));
    },
  });
  const remove = useMutation({
    mutationFn: (id: number) => request(DeleteSynonymGroup, { id }),
    onSuccess: async () => {
      await changed();
      const label = deleting?.label ?? '';
      setAnnouncement(t`Group deleted: ${label}.`);
      setDeleting((d) => (d ? { ...d, open: false } : d));
    },
  });

  const edit = (id: number | null, terms: string) => {
    save.reset();
    setEditing((e) => ({ id, terms, seq: (e?.seq ?? 0) + 1, open: true }));
  };
  const list = groups.data?.synonymGroups ?? [];
  const deletingLabel = deleting?.label ?? '';

  return (
    <section className="screen-section" aria-labelledby={headingId}>
      <div className="page-head">
        <h2 id={headingId}>
          <Trans>Synonym groups</Trans>
        </h2>
        {canWrite && (
          <button type="button" className="button" onClick={() => edit(null, '')}>
            <Trans>New synonym group</Trans>
          </button>
        )}
      </div>
      <p className="muted hint">
        <Trans>A word of a search also finds every other word of its groups, ranked just below its own matches.</Trans>
      </p>
      {groups.isPending && (
        <p>
          <Trans>Loading synonym groups…</Trans>
        </p>
      )}
      {groups.isError && (
        <p className="form-error" role="alert">
          {groups.error.message}
        </p>
      )}
      {groups.data && list.length === 0 && (
        <p className="notice">
          <Trans>No synonym groups yet.</Trans>
        </p>
      )}
      {list.length > 0 && (
        <ul className="synonym-list" aria-labelledby={headingId}>
          {list.map((group) => {
            const label = group.terms.join(', ');
            const count = group.terms.length;
            return (
              <li key={group.id}>
                <span className="visually-hidden">
                  <Plural value={count} one="# term:" other="# terms:" />
                </span>
                <ul className="terms">
                  {group.terms.map((term) => (
                    <li key={term} className="term">
                      {term}
                    </li>
                  ))}
                </ul>
                {canWrite && (
                  <span className="button-row">
                    <button
                      type="button"
                      className="button"
                      aria-label={t`Edit ${label}`}
                      onClick={() => edit(group.id, label)}
                    >
                      <Trans>Edit</Trans>
                    </button>
                    <button
                      type="button"
                      className="button"
                      aria-label={t`Delete ${label}`}
                      onClick={() => {
                        remove.reset();
                        setDeleting({ id: group.id, label, open: true });
                      }}
                    >
                      <Trans>Delete</Trans>
                    </button>
                  </span>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <p role="status" className="announcement">
        {announcement}
      </p>

      {editing && (
        <TermsDialog
          key={editing.seq}
          open={editing.open}
          creating={editing.id === null}
          initial={editing.terms}
          busy={save.isPending}
          error={editing.open ? save.error : null}
          onCancel={() => setEditing({ ...editing, open: false })}
          onSubmit={(terms) => save.mutate({ id: editing.id, terms })}
        />
      )}
      {deleting && (
        <ConfirmDialog
          open={deleting.open}
          title={t`Delete the group ${deletingLabel}?`}
          confirmLabel={t`Delete group`}
          destructive
          busy={remove.isPending}
          onCancel={() => setDeleting({ ...deleting, open: false })}
          onConfirm={() => remove.mutate(deleting.id)}
        >
          {remove.isError && (
            <p className="form-error" role="alert">
              {remove.error.message}
            </p>
          )}
        </ConfirmDialog>
      )}
    </section>
  );
}

function TermsDialog({
  open,
  creating,
  initial,
  busy,
  error,
  onSubmit,
  onCancel,
}: {
  open: boolean;
  creating: boolean;
  initial: string;
  busy: boolean;
  error: unknown;
  onSubmit: (terms: string[]) => void;
  onCancel: () => void;
}) {
  const { t } = useLingui();
  const [text, setText] = useState(initial);
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  // `terms` or one term (`terms.2`): each said under the field.
  const problems = Object.entries(problemsByField(error))
    .filter(([field]) => field === 'terms' || field.startsWith('terms'))
    .map(([, message]) => message);
  const other = error instanceof ApiError && !problems.length ? error.message : undefined;
  return (
    <FormDialog
      open={open}
      title={creating ? t`New synonym group` : t`Edit synonym group`}
      submitLabel={creating ? t`Create group` : t`Save group`}
      busy={busy}
      error={other}
      onCancel={onCancel}
      onSubmit={() => onSubmit(termsOf(text))}
    >
      <div className="field">
        <label htmlFor={id}>{t`Terms`}</label>
        <input
          id={id}
          value={text}
          autoComplete="off"
          onChange={(e) => setText(e.target.value)}
          aria-invalid={problems.length ? true : undefined}
          aria-describedby={problems.length ? `${hintId} ${errorId}` : hintId}
        />
        <p id={hintId} className="muted hint">
          {t`2 to 20 words or phrases that mean the same, separated by commas.`}
        </p>
        {problems.length > 0 && (
          <p id={errorId} className="field-error">
            {problems.join(' ')}
          </p>
        )}
      </div>
    </FormDialog>
  );
}
