/**
 * The team's admins (contract §10.1, owner): the list with role, state and two-factor login; adding
 * one with a role; changing a role, disabling or enabling, and ending every session of one — each
 * behind a confirmation naming the admin. The service's refusals (the last owner, one's own account)
 * are shown in its words inside the dialog.
 */
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { ADMIN_ROLES, type AdminRole } from '../../../auth/roles.ts';
import { adminMeQuery } from '../../../auth/session.gql.ts';
import { errorText } from '../../../gql/error-text.ts';
import { problemsByField } from '../../../gql/errors.ts';
import { request } from '../../../gql/request.ts';
import { ConfirmDialog } from '../../../ui/confirm-dialog.tsx';
import { useDateTime } from '../../../ui/date-time.ts';
import { useRoleName } from '../../../ui/role-name.ts';
import { TextField } from '../../../ui/text-field.tsx';
import {
  ADMINS_KEY,
  Admins,
  CreateAdmin,
  RevokeAllSessionsOfAdmin,
  SetAdminDisabled,
  SetAdminRole,
  type TeamAdmin,
} from '../-team.gql.ts';

type Action =
  | { kind: 'role'; admin: TeamAdmin; role: AdminRole }
  | { kind: 'disable'; admin: TeamAdmin }
  | { kind: 'sessions'; admin: TeamAdmin };

export function AdminsSection({ myId }: { myId: number }) {
  const { t } = useLingui();
  const queryClient = useQueryClient();
  const roleName = useRoleName();
  const dateTime = useDateTime();
  const captionId = useId();
  const roleFieldId = useId();
  const [action, setAction] = useState<Action>();
  const [announcement, setAnnouncement] = useState('');
  const admins = useQuery({ queryKey: ADMINS_KEY, queryFn: ({ signal }) => request(Admins, {}, signal) });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ADMINS_KEY });

  const act = useMutation({
    mutationFn: async (a: Action | { kind: 'enable'; admin: TeamAdmin }) => {
      if (a.kind === 'role') await request(SetAdminRole, { id: a.admin.id, role: a.role });
      else if (a.kind === 'disable') await request(SetAdminDisabled, { id: a.admin.id, disabled: true });
      else if (a.kind === 'enable') await request(SetAdminDisabled, { id: a.admin.id, disabled: false });
      else await request(RevokeAllSessionsOfAdmin, { adminId: a.admin.id });
      return a;
    },
    onSuccess: (a) => {
      const name = a.admin.username;
      const role = a.kind === 'role' ? roleName(a.role) : '';
      setAnnouncement(
        a.kind === 'role'
          ? t`${name} is now ${role}.`
          : a.kind === 'disable'
            ? t`${name} is disabled.`
            : a.kind === 'enable'
              ? t`${name} is enabled again.`
              : t`Every session of ${name} was ended.`,
      );
      setAction(undefined);
      void refresh();
      // One's own new role changes what the console offers (the navigation, this screen).
      if (a.kind === 'role' && a.admin.id === myId)
        void queryClient.invalidateQueries({ queryKey: adminMeQuery.queryKey });
    },
  });
  const open = (a: Action) => {
    act.reset();
    setAction(a);
  };
  const close = () => {
    act.reset();
    setAction(undefined);
  };

  const list = admins.data?.admins ?? [];
  const dialogError = act.isError && action ? errorText(act.error) : undefined;
  const target = action?.admin.username ?? '';

  return (
    <>
      <CreateAdminForm
        onCreated={(name) => {
          setAnnouncement(t`Created the admin ${name}.`);
          void refresh();
        }}
      />
      <h3 id={captionId}>
        <Trans>Admins</Trans>
      </h3>
      {admins.isError && (
        <p className="form-error" role="alert">
          {admins.error.message}
        </p>
      )}
      {act.isError && !action && (
        <p className="form-error" role="alert">
          {errorText(act.error)}
        </p>
      )}
      <p role="status" className="status-line">
        {announcement}
      </p>
      {list.length > 0 && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (WCAG 2.1.1)
        <section className="table-scroll" aria-labelledby={captionId} tabIndex={0}>
          <table className="admins-table" aria-busy={admins.isFetching}>
            <thead>
              <tr>
                <th scope="col">
                  <Trans>Username</Trans>
                </th>
                <th scope="col">
                  <Trans>Role</Trans>
                </th>
                <th scope="col">
                  <Trans>State</Trans>
                </th>
                <th scope="col">
                  <Trans>Two-factor login</Trans>
                </th>
                <th scope="col">
                  <Trans>Created</Trans>
                </th>
                <th scope="col">
                  <Trans>Actions</Trans>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((admin) => {
                const mine = admin.id === myId;
                const name = admin.username;
                return (
                  <tr key={admin.id}>
                    <th scope="row" className="admin-name">
                      {name}
                      {mine && (
                        <span className="muted">
                          {' '}
                          <Trans>(you)</Trans>
                        </span>
                      )}
                    </th>
                    <td>{roleName(admin.role)}</td>
                    <td>
                      {admin.disabled ? (
                        <span className="badge state-disabled">
                          <Trans>Disabled</Trans>
                        </span>
                      ) : (
                        <Trans>Enabled</Trans>
                      )}
                    </td>
                    <td>{admin.totpEnabled ? <Trans>On</Trans> : <Trans>Off</Trans>}</td>
                    <td>{dateTime(admin.createdAt)}</td>
                    <td>
                      <div className="row-actions">
                        <button
                          type="button"
                          className="button"
                          onClick={() => open({ kind: 'role', admin, role: admin.role })}
                        >
                          <Trans>
                            Change role<span className="visually-hidden"> of {name}</span>
                          </Trans>
                        </button>
                        {!mine &&
                          (admin.disabled ? (
                            <button
                              type="button"
                              className="button"
                              disabled={act.isPending}
                              onClick={() => act.mutate({ kind: 'enable', admin })}
                            >
                              <Trans>
                                Enable<span className="visually-hidden"> {name}</span>
                              </Trans>
                            </button>
                          ) : (
                            <button type="button" className="button" onClick={() => open({ kind: 'disable', admin })}>
                              <Trans>
                                Disable<span className="visually-hidden"> {name}</span>
                              </Trans>
                            </button>
                          ))}
                        {!mine && (
                          <button type="button" className="button" onClick={() => open({ kind: 'sessions', admin })}>
                            <Trans>
                              End sessions<span className="visually-hidden"> of {name}</span>
                            </Trans>
                          </button>
                        )}
                      </div>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </section>
      )}

      <ConfirmDialog
        open={action?.kind === 'role'}
        title={t`Change the role of ${target}`}
        confirmLabel={t`Save the role`}
        busy={act.isPending}
        onConfirm={() => action && act.mutate(action)}
        onCancel={close}
      >
        <div className="field">
          <label htmlFor={roleFieldId}>{t`New role`}</label>
          <select
            id={roleFieldId}
            value={action?.kind === 'role' ? action.role : 'viewer'}
            onChange={(e) => action?.kind === 'role' && setAction({ ...action, role: e.target.value as AdminRole })}
          >
            {ADMIN_ROLES.map((role) => (
              <option key={role} value={role}>
                {roleName(role)}
              </option>
            ))}
          </select>
        </div>
        <p className="muted">
          <Trans>It takes effect on their next request.</Trans>
        </p>
        {dialogError && (
          <p className="form-error" role="alert">
            {dialogError}
          </p>
        )}
      </ConfirmDialog>
      <ConfirmDialog
        open={action?.kind === 'disable'}
        title={t`Disable ${target}?`}
        confirmLabel={t`Disable ${target}`}
        destructive
        busy={act.isPending}
        onConfirm={() => action && act.mutate(action)}
        onCancel={close}
      >
        <p>
          <Trans>
            They are signed out at once and cannot sign in until enabled again; the API keys they created stop working
            meanwhile.
          </Trans>
        </p>
        {dialogError && (
          <p className="form-error" role="alert">
            {dialogError}
          </p>
        )}
      </ConfirmDialog>
      <ConfirmDialog
        open={action?.kind === 'sessions'}
        title={t`End every session of ${target}?`}
        confirmLabel={t`End the sessions`}
        destructive
        busy={act.isPending}
        onConfirm={() => action && act.mutate(action)}
        onCancel={close}
      >
        <p>
          <Trans>They are signed out everywhere at once, and can sign in again.</Trans>
        </p>
        {dialogError && (
          <p className="form-error" role="alert">
            {dialogError}
          </p>
        )}
      </ConfirmDialog>
    </>
  );
}

function CreateAdminForm({ onCreated }: { onCreated: (username: string) => void }) {
  const { t } = useLingui();
  const roleName = useRoleName();
  const roleId = useId();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<AdminRole>('viewer');
  const create = useMutation({
    mutationFn: (input: { username: string; password: string; role: AdminRole }) => request(CreateAdmin, { input }),
    onSuccess: ({ createAdmin }) => {
      setUsername('');
      setPassword('');
      setRole('viewer');
      onCreated(createAdmin.username);
    },
  });
  const byField = problemsByField(create.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ username: username.trim(), password, role });
  };
  return (
    <form className="create-form" onSubmit={submit} noValidate aria-labelledby={`${roleId}-title`}>
      <h3 id={`${roleId}-title`}>
        <Trans>Add an admin</Trans>
      </h3>
      {create.isError && Object.keys(byField).length === 0 && (
        <p className="form-error" role="alert">
          {create.error.message}
        </p>
      )}
      <div className="form-grid">
        <TextField
          label={t`Username`}
          name="new-admin-username"
          autoComplete="off"
          required
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          error={byField.username}
        />
        <TextField
          label={t`Password`}
          name="new-admin-password"
          type="password"
          autoComplete="new-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={byField.password}
        />
        <div className="field">
          <label htmlFor={roleId}>{t`Role`}</label>
          <select id={roleId} value={role} onChange={(e) => setRole(e.target.value as AdminRole)}>
            {ADMIN_ROLES.map((r) => (
              <option key={r} value={r}>
                {roleName(r)}
              </option>
            ))}
          </select>
        </div>
      </div>
      <button type="submit" className="button primary" disabled={create.isPending}>
        <Trans>Create the admin</Trans>
      </button>
    </form>
  );
}
