/** Each screen's name, as the navigation and the screen's heading say it. */
import type { MessageDescriptor } from '@lingui/core';
import { msg } from '@lingui/core/macro';
import type { ScreenId } from '../auth/roles.ts';

export const SCREEN_NAMES: Record<ScreenId, MessageDescriptor> = {
  items: msg`Items`,
  categories: msg`Categories`,
  search: msg`Search`,
  import: msg`Import`,
  team: msg`Team`,
  'audit-log': msg`Audit log`,
  webhooks: msg`Webhooks`,
  account: msg`My account`,
};
