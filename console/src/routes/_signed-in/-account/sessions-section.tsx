/**
 * The own sessions (contract §10.4): each login's device, address and times, this one marked in words;
 * ending one (its tokens stop at once), or every other one after a confirmation. The service has no
 * "all but mine" for admins, so the others are ended one by one.
 */
import { plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { request } from '../../../gql/request.ts';
import { ConfirmDialog } from '../../../ui/confirm-dialog.tsx';
import { useDateTime } from '../../../ui/date-time.ts';
import { type AdminSession, AdminSessions, RevokeAdminSession, SESSIONS_KEY } from '../-account.gql.ts';

export function SessionsSection() {
  const { t } = useLingui();
  const queryClient = useQueryClient();
  const dateTime = useDateTime();
  const captionId = useId();
  const [confirmAll, setConfirmAll] = useState(false);
  const [announcement, setAnnouncement] = useState('');
  const sessions = useQuery({
    queryKey: SESSIONS_KEY,
    queryFn: ({ signal }) => request(AdminSessions, {}, signal),
  });
  const revoke = useMutation({
    mutationFn: async (ids: string[]) => {
      for (const id of ids) await request(RevokeAdminSession, { id });
      return ids.length;
    },
    onSuccess: (count) => {
      setAnnouncement(plural(count, { one: 'Ended # session.', other: 'Ended # sessions.' }));
      setConfirmAll(false);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: SESSIONS_KEY }),
  });

  const list = sessions.data?.adminSessions ?? [];
  const others = list.filter((s) => !s.current).map((s) => s.id);
  const device = (s: AdminSession) => s.userAgent || t`Unknown device`;

  return (
    <>
      <p id={captionId} className="muted">
        <Trans>Every place you are signed in, newest first.</Trans>
      </p>
      {sessions.isError && (
        <p className="form-error" role="alert">
          {sessions.error.message}
        </p>
      )}
      {revoke.isError && (
        <p className="form-error" role="alert">
          {revoke.error.message}
        </p>
      )}
      {sessions.isPending && (
        <p role="status">
          <Trans>Loading sessions…</Trans>
        </p>
      )}
      {list.length > 0 && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (WCAG 2.1.1)
        <section className="table-scroll" aria-labelledby={captionId} tabIndex={0}>
          <table className="sessions-table" aria-busy={sessions.isFetching}>
            <thead>
              <tr>
                <th scope="col">
                  <Trans>Device</Trans>
                </th>
                <th scope="col">
                  <Trans>Address</Trans>
                </th>
                <th scope="col">
                  <Trans>Signed in</Trans>
                </th>
                <th scope="col">
                  <Trans>Last used</Trans>
                </th>
                <th scope="col">
                  <Trans>Action</Trans>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((s) => (
                <tr key={s.id} className={s.current ? 'current-session' : undefined}>
                  <td>
                    {s.current && (
                      <span className="badge">
                        <Trans>This session</Trans>
                      </span>
                    )}{' '}
                    <span className="user-agent">{device(s)}</span>
                  </td>
                  <td>{s.ip ?? '—'}</td>
                  <td>{dateTime(s.createdAt)}</td>
                  <td>{dateTime(s.lastUsedAt)}</td>
                  <td>
                    {s.current ? (
                      <span className="muted">
                        <Trans>Use Sign out</Trans>
                      </span>
                    ) : (
                      <button
                        type="button"
                        className="button"
                        disabled={revoke.isPending}
                        onClick={() => revoke.mutate([s.id])}
                      >
                        <Trans>End session</Trans>
                        <span className="visually-hidden">
                          {' '}
                          <Trans>
                            signed in {dateTime(s.createdAt)} from {s.ip ?? '—'}
                          </Trans>
                        </span>
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {others.length > 0 && (
        <p>
          <button type="button" className="button" onClick={() => setConfirmAll(true)}>
            <Trans>End all other sessions</Trans>
          </button>
        </p>
      )}
      <p role="status" className="status-line">
        {announcement}
      </p>
      <ConfirmDialog
        open={confirmAll}
        title={t`End all other sessions?`}
        confirmLabel={plural(others.length, { one: 'End # other session', other: 'End # other sessions' })}
        destructive
        busy={revoke.isPending}
        onConfirm={() => revoke.mutate(others)}
        onCancel={() => setConfirmAll(false)}
      >
        <p>
          <Trans>Every other browser or device signed in as you is signed out at once. This one stays signed in.</Trans>
        </p>
      </ConfirmDialog>
    </>
  );
}
