/** A delivery attempt's status (contract §14.2) as the console names it. */
import type { MessageDescriptor } from '@lingui/core';
import { msg } from '@lingui/core/macro';
import { useLingui } from '@lingui/react';
import { useCallback } from 'react';
import type { DeliveryStatus } from '../-webhooks.gql.ts';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const satisfies readonly DeliveryStatus[];

const NAMES: Record<DeliveryStatus, MessageDescriptor> = {
  pending: msg`Pending`,
  succeeded: msg`Succeeded`,
  failed: msg`Failed`,
};

export function useDeliveryStatusName(): (status: DeliveryStatus) => string {
  const { _ } = useLingui();
  return useCallback((status: DeliveryStatus) => _(NAMES[status]), [_]);
}
