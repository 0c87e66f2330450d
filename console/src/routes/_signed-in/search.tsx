/**
 * Search (contract §15): the synonym groups that widen a shopper's search (every admin reads them;
 * catalogWrite roles create, edit and delete), and a "try a query" panel that shows what the
 * storefront's search answers for a keyword, with its facets to filter by.
 */
import { useLingui } from '@lingui/react/macro';
import { createFileRoute } from '@tanstack/react-router';
import { useState } from 'react';
import { mayDo } from '../../auth/roles.ts';
import { PageShell } from '../../ui/page-shell.tsx';
import { SynonymGroupsSection } from './-search/synonym-groups.tsx';
import { TrialQuery } from './-search/trial-query.tsx';

export const Route = createFileRoute('/_signed-in/search')({
  staticData: { screen: 'search' },
  component: SearchScreen,
});

function SearchScreen() {
  const { t } = useLingui();
  const { admin } = Route.useRouteContext();
  // Each synonym change asks the trial again (its answer would change with it).
  const [generation, setGeneration] = useState(0);
  return (
    <PageShell title={t`Search`}>
      <SynonymGroupsSection
        canWrite={mayDo(admin.role, 'catalogWrite')}
        onChanged={() => setGeneration((g) => g + 1)}
      />
      <TrialQuery generation={generation} />
    </PageShell>
  );
}
