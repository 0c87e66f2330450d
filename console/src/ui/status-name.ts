/** Each item status's name as the console shows it. */
import type { MessageDescriptor } from '@lingui/core';
import { msg } from '@lingui/core/macro';
import { useLingui } from '@lingui/react';
import { useCallback } from 'react';

export const ITEM_STATUSES = ['draft', 'active', 'archived'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

const STATUS_NAMES: Record<ItemStatus, MessageDescriptor> = {
  draft: msg`Draft`,
  active: msg`Active`,
  archived: msg`Archived`,
};

export function useStatusName(): (status: ItemStatus) => string {
  const { _ } = useLingui();
  return useCallback((status: ItemStatus) => _(STATUS_NAMES[status]), [_]);
}
