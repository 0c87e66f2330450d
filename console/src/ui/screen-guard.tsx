/**
 * Each screen's route names its screen (`staticData: { screen }`); the signed-in frame shows it only
 * to a role that may use it (auth/roles.ts) and says who may otherwise — for a deep link or a stale
 * bookmark, since the navigation never offers it.
 */
import { Trans, useLingui } from '@lingui/react/macro';
import { useMatches } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { type AdminRole, mayUse, rolesFor, type ScreenId } from '../auth/roles.ts';
import { PageShell } from './page-shell.tsx';
import { useRoleName } from './role-name.ts';

declare module '@tanstack/react-router' {
  interface StaticDataRouteOption {
    /** The screen a route shows, for the role check. */
    screen?: ScreenId;
  }
}

export function ScreenGuard({ role, children }: { role: AdminRole; children: ReactNode }) {
  const screen = useMatches({ select: (matches) => matches.at(-1)?.staticData.screen });
  if (!screen || mayUse(role, screen)) return children;
  return <ScreenForbidden role={role} screen={screen} />;
}

function ScreenForbidden({ role, screen }: { role: AdminRole; screen: ScreenId }) {
  const { t } = useLingui();
  const roleName = useRoleName();
  const roles = rolesFor(screen).map(roleName).join(' / ');
  const yours = roleName(role);
  return (
    <PageShell title={t`Not allowed`}>
      <p className="notice" role="alert">
        <Trans>
          This screen needs the role {roles}; yours is {yours}.
        </Trans>
      </p>
    </PageShell>
  );
}
