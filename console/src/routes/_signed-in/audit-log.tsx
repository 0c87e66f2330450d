/**
 * Audit log (contract §15, owner): the `auditLog` query with every filter it offers — who acted (kind
 * and id), the action, the target (kind and id), a time range — all in the URL so a link shows the
 * same page; paging with the total from the same answer; each entry's changes as a diff
 * (-audit-log/changes-table.tsx). Secrets come redacted from the service and are shown as such.
 */

import { useLingui as useLinguiRuntime } from '@lingui/react';
import { Plural, Trans, useLingui } from '@lingui/react/macro';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createFileRoute, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useEffect, useId, useState } from 'react';
import { ApiError } from '../../gql/errors.ts';
import { request } from '../../gql/request.ts';
import { useDateTime } from '../../ui/date-time.ts';
import { PageShell } from '../../ui/page-shell.tsx';
import { Pager } from '../../ui/pager.tsx';
import { ACTIONS, ACTOR_TYPE_NAMES, ACTOR_TYPES, TARGET_TYPE_NAMES, TARGET_TYPES } from './-audit-log/audit-names.ts';
import { ChangesTable } from './-audit-log/changes-table.tsx';
import { type AuditEntry, AuditLog, type AuditLogVariables } from './-audit-log.gql.ts';

/** The page sizes offered; the first is the service's default (20). */
const LIMITS = [20, 10, 50, 100] as const;

type ActorType = (typeof ACTOR_TYPES)[number];
type TargetType = (typeof TARGET_TYPES)[number];

interface AuditSearch {
  actorType?: ActorType;
  actorId?: number;
  action?: string;
  targetType?: TargetType;
  targetId?: number;
  /** A local date and time as `<input type="datetime-local">` holds it ("2026-11-27T09:30"). */
  from?: string;
  to?: string;
  page?: number;
  limit?: number;
}

const positive = (value: unknown) => {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 ? n : undefined;
};
const localDateTime = (value: unknown) =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value) ? value : undefined;
/** The local time of a datetime-local value as the service's DateTime (an instant). */
const instant = (local: string | undefined, endOfMinute: boolean) => {
  if (!local) return null;
  const date = new Date(local);
  if (Number.isNaN(date.getTime())) return null;
  // "to 10:30" includes the entries of 10:30 itself.
  if (endOfMinute && local.length === 16) date.setSeconds(59, 999);
  return date.toISOString();
};

export const Route = createFileRoute('/_signed-in/audit-log')({
  validateSearch: (search: Record<string, unknown>): AuditSearch => {
    const actorType = ACTOR_TYPES.find((x) => x === search.actorType);
    const targetType = TARGET_TYPES.find((x) => x === search.targetType);
    const action = typeof search.action === 'string' ? search.action.trim().slice(0, 100) : undefined;
    const page = positive(search.page);
    const limit = LIMITS.find((l) => l === Number(search.limit));
    const fields: AuditSearch = {
      actorType,
      actorId: positive(search.actorId),
      action: action || undefined,
      targetType,
      targetId: positive(search.targetId),
      from: localDateTime(search.from),
      to: localDateTime(search.to),
      page: page && page > 1 ? page : undefined,
      limit: limit && limit !== LIMITS[0] ? limit : undefined,
    };
    return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as AuditSearch;
  },
  staticData: { screen: 'audit-log' },
  component: AuditLogScreen,
});

function AuditLogScreen() {
  const { t } = useLingui();
  const search = Route.useSearch();
  const navigate = useNavigate({ from: Route.fullPath });
  const captionId = useId();

  const variables: AuditLogVariables = {
    actorType: search.actorType ?? null,
    actorId: search.actorId ?? null,
    action: search.action ?? null,
    targetType: search.targetType ?? null,
    targetId: search.targetId ?? null,
    from: instant(search.from, false),
    to: instant(search.to, true),
    page: search.page ?? 1,
    limit: search.limit ?? LIMITS[0],
  };
  const log = useQuery({
    queryKey: ['audit-entry', 'list', variables],
    queryFn: ({ signal }) => request(AuditLog, variables, signal),
    placeholderData: keepPreviousData,
  });
  const page = log.data?.auditLog;
  const total = page?.total ?? 0;
  const pageNumber = page?.page ?? 1;
  const totalPages = page?.totalPages ?? 0;
  const go = (next: AuditSearch) => navigate({ search: next });

  return (
    <PageShell title={t`Audit log`}>
      <AuditFilters
        search={search}
        onApply={(filters) => void go({ ...filters, limit: search.limit })}
        onLimit={(limit) => void go({ ...search, page: undefined, limit: limit === LIMITS[0] ? undefined : limit })}
      />

      <p id={captionId} className="result-line" aria-live="polite">
        {log.isPending ? (
          <Trans>Loading entries…</Trans>
        ) : log.isError ? null : (
          <>
            <Plural value={total} one="# entry" other="# entries" />
            {log.isFetching && (
              <span className="muted">
                {' '}
                <Trans>(updating…)</Trans>
              </span>
            )}
          </>
        )}
      </p>
      {log.isError && (
        <p className="form-error" role="alert">
          {log.error instanceof ApiError && log.error.code === 'VALIDATION_FAILED'
            ? log.error.fieldProblems.map((p) => `${p.field}: ${p.message}`).join('; ')
            : log.error.message}
        </p>
      )}

      {page && page.entries.length > 0 && (
        <ol className="audit-entries" aria-labelledby={captionId} aria-busy={log.isFetching}>
          {page.entries.map((entry) => (
            <li key={entry.id}>
              <Entry entry={entry} />
            </li>
          ))}
        </ol>
      )}
      {page && page.entries.length === 0 && (
        <p className="notice">
          <Trans>No entries match.</Trans>
        </p>
      )}

      {page && (
        <Pager
          page={pageNumber}
          totalPages={totalPages}
          label={t`Pages`}
          onPage={(p) => void go({ ...search, page: p > 1 ? p : undefined })}
        />
      )}
    </PageShell>
  );
}

type Filters = Omit<AuditSearch, 'page' | 'limit'>;

/** The filter form: edited freely, applied (to the URL) on submit; Clear shows every entry again. */
function AuditFilters({
  search,
  onApply,
  onLimit,
}: {
  search: AuditSearch;
  onApply: (filters: Filters) => void;
  onLimit: (limit: number) => void;
}) {
  const { t } = useLingui();
  const { _ } = useLinguiRuntime();
  const [form, setForm] = useState<Record<keyof Filters, string>>(() => toForm(search));
  useEffect(() => setForm(toForm(search)), [search]);
  const set = (key: keyof Filters) => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, [key]: e.target.value }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({
      actorType: (form.actorType || undefined) as ActorType | undefined,
      actorId: positive(form.actorId),
      action: form.action.trim() || undefined,
      targetType: (form.targetType || undefined) as TargetType | undefined,
      targetId: positive(form.targetId),
      from: localDateTime(form.from),
      to: localDateTime(form.to),
    });
  };
  return (
    <search>
      <form className="filters audit-filters" onSubmit={submit}>
        <div className="field">
          <label htmlFor="audit-action">{t`Action`}</label>
          <input id="audit-action" list="audit-actions" value={form.action} onChange={set('action')} maxLength={100} />
          <datalist id="audit-actions">
            {ACTIONS.map((a) => (
              <option key={a} value={a} />
            ))}
          </datalist>
        </div>
        <div className="field">
          <label htmlFor="audit-actor-type">{t`Who acted`}</label>
          <select id="audit-actor-type" value={form.actorType} onChange={set('actorType')}>
            <option value="">{t`Anyone`}</option>
            {ACTOR_TYPES.map((type) => (
              <option key={type} value={type}>
                {_(ACTOR_TYPE_NAMES[type])}
              </option>
            ))}
          </select>
        </div>
        <div className="field narrow">
          <label htmlFor="audit-actor-id">{t`Actor id`}</label>
          <input id="audit-actor-id" type="number" min={1} value={form.actorId} onChange={set('actorId')} />
        </div>
        <div className="field">
          <label htmlFor="audit-target-type">{t`Target`}</label>
          <select id="audit-target-type" value={form.targetType} onChange={set('targetType')}>
            <option value="">{t`Anything`}</option>
            {TARGET_TYPES.map((type) => (
              <option key={type} value={type}>
                {_(TARGET_TYPE_NAMES[type])}
              </option>
            ))}
          </select>
        </div>
        <div className="field narrow">
          <label htmlFor="audit-target-id">{t`Target id`}</label>
          <input id="audit-target-id" type="number" min={1} value={form.targetId} onChange={set('targetId')} />
        </div>
        <div className="field">
          <label htmlFor="audit-from">{t`From`}</label>
          <input id="audit-from" type="datetime-local" value={form.from} onChange={set('from')} />
        </div>
        <div className="field">
          <label htmlFor="audit-to">{t`To`}</label>
          <input id="audit-to" type="datetime-local" value={form.to} onChange={set('to')} />
        </div>
        <div className="field">
          <label htmlFor="audit-limit">{t`Per page`}</label>
          <select id="audit-limit" value={search.limit ?? LIMITS[0]} onChange={(e) => onLimit(Number(e.target.value))}>
            {[...LIMITS]
              .sort((a, b) => a - b)
              .map((limit) => (
                <option key={limit} value={limit}>
                  {limit}
                </option>
              ))}
          </select>
        </div>
        <div className="button-row filter-buttons">
          <button type="submit" className="button primary">
            <Trans>Apply filters</Trans>
          </button>
          <button type="button" className="button" onClick={() => onApply({})}>
            <Trans>Clear filters</Trans>
          </button>
        </div>
      </form>
    </search>
  );
}

function toForm(search: AuditSearch): Record<keyof Filters, string> {
  return {
    actorType: search.actorType ?? '',
    actorId: search.actorId?.toString() ?? '',
    action: search.action ?? '',
    targetType: search.targetType ?? '',
    targetId: search.targetId?.toString() ?? '',
    from: search.from ?? '',
    to: search.to ?? '',
  };
}

function Entry({ entry }: { entry: AuditEntry }) {
  const { t } = useLingui();
  const { _ } = useLinguiRuntime();
  const dateTime = useDateTime();
  const titleId = useId();
  const actorKind = ACTOR_TYPES.find((x) => x === entry.actor.type);
  const targetKind = TARGET_TYPES.find((x) => x === entry.target.type);
  const actorType = actorKind ? _(ACTOR_TYPE_NAMES[actorKind]) : entry.actor.type;
  const targetType = targetKind ? _(TARGET_TYPE_NAMES[targetKind]) : entry.target.type;
  const actorName = entry.actor.name ?? '—';
  const actorId = entry.actor.id;
  const targetId = entry.target.id;
  const action = entry.action;
  return (
    <article className="audit-entry" aria-labelledby={titleId}>
      <h2 id={titleId} className="audit-title">
        <code>{action}</code>{' '}
        <span className="muted">
          {targetId === null ? (
            targetType
          ) : (
            <Trans>
              {targetType} #{targetId}
            </Trans>
          )}
        </span>
      </h2>
      <dl className="audit-facts">
        <div>
          <dt>
            <Trans>When</Trans>
          </dt>
          <dd>
            <time dateTime={entry.at}>{dateTime(entry.at)}</time>
          </dd>
        </div>
        <div>
          <dt>
            <Trans>Who</Trans>
          </dt>
          <dd>
            {actorId === null ? (
              <Trans>
                {actorName} ({actorType})
              </Trans>
            ) : (
              <Trans>
                {actorName} ({actorType} #{actorId})
              </Trans>
            )}
          </dd>
        </div>
        {entry.ip && (
          <div>
            <dt>
              <Trans>Address</Trans>
            </dt>
            <dd>{entry.ip}</dd>
          </div>
        )}
        {entry.requestId && (
          <div>
            <dt>
              <Trans>Request</Trans>
            </dt>
            <dd>
              <code>{entry.requestId}</code>
            </dd>
          </div>
        )}
      </dl>
      <ChangesTable changes={entry.changes} label={t`Changes of ${action}`} />
    </article>
  );
}
