/**
 * My account (contract §15), for every admin: the own password, two-factor login (enrol with the QR
 * code and recovery codes, or turn off) and the own sessions (contract §10.1, §10.3, §10.4).
 */
import { useLingui } from '@lingui/react/macro';
import { useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { adminMeQuery } from '../../auth/session.gql.ts';
import { PageShell } from '../../ui/page-shell.tsx';
import { PasswordForm } from './-account/password-form.tsx';
import { SessionsSection } from './-account/sessions-section.tsx';
import { TwoFactorSection } from './-account/two-factor-section.tsx';

export const Route = createFileRoute('/_signed-in/account')({
  staticData: { screen: 'account' },
  component: AccountScreen,
});

function AccountScreen() {
  const { t } = useLingui();
  const { data } = useSuspenseQuery(adminMeQuery);
  const me = data.adminMe;
  return (
    <PageShell title={t`My account`}>
      <section className="account-section" aria-labelledby="account-password">
        <h2 id="account-password">{t`Password`}</h2>
        <PasswordForm />
      </section>
      <section className="account-section" aria-labelledby="account-two-factor">
        <h2 id="account-two-factor">{t`Two-factor login`}</h2>
        <TwoFactorSection enabled={me?.totpEnabled ?? false} />
      </section>
      <section className="account-section" aria-labelledby="account-sessions">
        <h2 id="account-sessions">{t`Sessions`}</h2>
        <SessionsSection />
      </section>
    </PageShell>
  );
}
