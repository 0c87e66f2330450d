/** Dates and times as the console shows them: the active language's format (console.md §3, Intl). */
import { useLingui } from '@lingui/react';
import { useCallback, useMemo } from 'react';

/** Formats an ISO date-time (the service's DateTime) as a medium date and a short time. */
export function useDateTime(): (iso: string) => string {
  const { i18n } = useLingui();
  const format = useMemo(
    () => new Intl.DateTimeFormat(i18n.locale, { dateStyle: 'medium', timeStyle: 'short' }),
    [i18n.locale],
  );
  return useCallback((iso: string) => format.format(new Date(iso)), [format]);
}
