/**
 * The console's navigation: a link per screen the admin's role may use (contract §15: the rest are
 * hidden, so a normal click never meets FORBIDDEN). On a narrow screen it folds behind a Menu button.
 */
import { useLingui } from '@lingui/react';
import { Link } from '@tanstack/react-router';
import { type AdminRole, mayUse, SCREENS } from '../auth/roles.ts';
import { SCREEN_NAMES } from './screen-names.ts';

export function Navigation({ role, id, onNavigate }: { role: AdminRole; id: string; onNavigate?: () => void }) {
  const { _ } = useLingui();
  return (
    <ul id={id} className="nav-list">
      {SCREENS.filter((screen) => mayUse(role, screen.id)).map((screen) => (
        <li key={screen.id}>
          <Link to={screen.path} activeProps={{ 'aria-current': 'page' }} onClick={onNavigate}>
            {_(SCREEN_NAMES[screen.id])}
          </Link>
        </li>
      ))}
    </ul>
  );
}
