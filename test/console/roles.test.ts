/**
 * The console's role table (console/src/auth/roles.ts) is the service's (src/auth/roles.ts): the
 * navigation can only hide what the service refuses if both say the same. And every screen the
 * navigation names has its route.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as consoleRoles from '../../console/src/auth/roles.ts';
import { ADMIN_ROLES, PERMISSIONS } from '../../src/auth/roles.ts';
import { ROOT } from '../helpers/service-process.ts';

describe('the console’s roles', () => {
  it('when compared with the service’s role table, then roles and permissions are the same', () => {
    expect(consoleRoles.ADMIN_ROLES).toEqual(ADMIN_ROLES);
    expect(consoleRoles.PERMISSIONS).toEqual(PERMISSIONS);
  });

  it('when the navigation is worked out per role, then the owner sees every screen and the others a part', () => {
    const visible = (role: (typeof ADMIN_ROLES)[number]) =>
      consoleRoles.SCREENS.filter((s) => consoleRoles.mayUse(role, s.id)).map((s) => s.id);
    expect(visible('owner')).toEqual(consoleRoles.SCREENS.map((s) => s.id));
    expect(visible('catalog_manager')).toEqual(['items', 'categories', 'search', 'import', 'account']);
    expect(visible('support')).toEqual(['items', 'categories', 'search', 'account']);
    expect(visible('viewer')).toEqual(['items', 'categories', 'search', 'account']);
  });

  it('when each screen of the navigation is looked for, then it has a route file', () => {
    for (const { path } of consoleRoles.SCREENS) {
      const base = join(ROOT, 'console/src/routes/_signed-in', path.slice(1));
      expect(existsSync(`${base}.tsx`) || existsSync(join(base, 'index.tsx')), path).toBe(true);
    }
  });
});
