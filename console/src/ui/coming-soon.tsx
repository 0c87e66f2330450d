/** A screen of contract §15 that is not built yet: its place in the navigation is real, its page says so. */
import { useLingui } from '@lingui/react';
import { Trans } from '@lingui/react/macro';
import type { ScreenId } from '../auth/roles.ts';
import { PageShell } from './page-shell.tsx';
import { SCREEN_NAMES } from './screen-names.ts';

export function ComingSoon({ screen }: { screen: ScreenId }) {
  const { _ } = useLingui();
  return (
    <PageShell title={_(SCREEN_NAMES[screen])}>
      <p className="notice">
        <Trans>This screen is coming in a later release of the console.</Trans>
      </p>
    </PageShell>
  );
}
