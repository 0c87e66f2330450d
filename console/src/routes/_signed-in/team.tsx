/**
 * Team (contract §15, owner): the admins — add with a role, change a role, disable or enable, end
 * their sessions — and the API keys of integrations — create (the secret shown once), revoke.
 */
import { useLingui } from '@lingui/react/macro';
import { useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { adminMeQuery } from '../../auth/session.gql.ts';
import { PageShell } from '../../ui/page-shell.tsx';
import { AdminsSection } from './-team/admins-section.tsx';
import { ApiKeysSection } from './-team/api-keys-section.tsx';

export const Route = createFileRoute('/_signed-in/team')({
  staticData: { screen: 'team' },
  component: TeamScreen,
});

function TeamScreen() {
  const { t } = useLingui();
  const { data } = useSuspenseQuery(adminMeQuery);
  return (
    <PageShell title={t`Team`}>
      <section className="team-section" aria-labelledby="team-admins">
        <h2 id="team-admins">{t`Administrators`}</h2>
        <AdminsSection myId={data.adminMe?.id ?? 0} />
      </section>
      <section className="team-section" aria-labelledby="team-api-keys">
        <h2 id="team-api-keys">{t`Integrations`}</h2>
        <ApiKeysSection />
      </section>
    </PageShell>
  );
}
