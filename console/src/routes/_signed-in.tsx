/**
 * Every screen behind sign-in: no token, or two-factor enrolment still owed → sign-in with
 * `?redirect=` back here; the admin (adminMe) is read once and handed to the screens as route
 * context, so each screen's route can check the role.
 */
import { Trans, useLingui } from '@lingui/react/macro';
import { useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute, Link, Outlet, redirect, useNavigate } from '@tanstack/react-router';
import { useId, useState } from 'react';
import { adminMeQuery, signOut } from '../auth/session.gql.ts';
import { session } from '../auth/session.ts';
import { isTokenError } from '../gql/errors.ts';
import { LanguageSwitch } from '../ui/language-switch.tsx';
import { Navigation } from '../ui/navigation.tsx';
import { useRoleName } from '../ui/role-name.ts';
import { ScreenGuard } from '../ui/screen-guard.tsx';

export const Route = createFileRoute('/_signed-in')({
  beforeLoad: async ({ context, location }) => {
    const toSignIn = () => redirect({ to: '/login', search: { redirect: location.href } });
    if (!session.token()) throw toSignIn();
    try {
      const { adminMe } = await context.queryClient.ensureQueryData(adminMeQuery);
      if (!adminMe) throw toSignIn();
      // The service requires two-factor login and this admin has not turned it on: the token may only enrol.
      if (adminMe.totpEnrollmentRequired) throw toSignIn();
      return { admin: adminMe };
    } catch (error) {
      if (isTokenError(error)) {
        session.clear();
        throw toSignIn();
      }
      throw error;
    }
  },
  component: SignedInLayout,
});

function SignedInLayout() {
  const { t } = useLingui();
  const { data } = useSuspenseQuery(adminMeQuery);
  const admin = data.adminMe;
  const roleName = useRoleName();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [menuOpen, setMenuOpen] = useState(false);
  const navId = useId();
  if (!admin) return null;
  const role = roleName(admin.role);
  const name = admin.username;

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        <Trans>Skip to content</Trans>
      </a>
      <header className="top-bar">
        <Link to="/items" className="brand">
          <Trans>Shop admin</Trans>
        </Link>
        <button
          type="button"
          className="button menu-button"
          aria-expanded={menuOpen}
          aria-controls={navId}
          onClick={() => setMenuOpen((open) => !open)}
        >
          <Trans>Menu</Trans>
        </button>
        <div className="top-bar-end">
          <LanguageSwitch />
          <span className="who">
            <Trans>
              {name} ({role})
            </Trans>
          </span>
          <button
            type="button"
            className="button"
            onClick={async () => {
              await signOut(queryClient);
              void navigate({ to: '/login', search: {} });
            }}
          >
            <Trans>Sign out</Trans>
          </button>
        </div>
      </header>
      <nav aria-label={t`Main`} className={menuOpen ? 'side-nav open' : 'side-nav'}>
        <Navigation role={admin.role} id={navId} onNavigate={() => setMenuOpen(false)} />
      </nav>
      <main id="main" className="content" tabIndex={-1}>
        <ScreenGuard role={admin.role}>
          <Outlet />
        </ScreenGuard>
      </main>
    </div>
  );
}
