/** Each admin role's name as the console shows it. */
import type { MessageDescriptor } from '@lingui/core';
import { msg } from '@lingui/core/macro';
import { useLingui } from '@lingui/react';
import { useCallback } from 'react';
import type { AdminRole } from '../auth/roles.ts';

const ROLE_NAMES: Record<AdminRole, MessageDescriptor> = {
  owner: msg`Owner`,
  catalog_manager: msg`Catalogue manager`,
  support: msg`Support`,
  viewer: msg`Viewer`,
};

export function useRoleName(): (role: AdminRole) => string {
  const { _ } = useLingui();
  return useCallback((role: AdminRole) => _(ROLE_NAMES[role]), [_]);
}
