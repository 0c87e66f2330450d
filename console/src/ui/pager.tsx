/**
 * Previous and next page of a list, with where it stands ("Page 2 of 7"): one pager for every paged
 * screen. Nothing when the list fits on one page.
 */
import { Trans } from '@lingui/react/macro';

interface PagerProps {
  page: number;
  totalPages: number;
  /** The navigation's accessible name ("Pages", "Pages of deliveries"). */
  label: string;
  onPage: (page: number) => void;
}

export function Pager({ page, totalPages, label, onPage }: PagerProps) {
  if (totalPages <= 1) return null;
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        <Trans>Previous page</Trans>
      </button>
      <span>
        <Trans>
          Page {page} of {totalPages}
        </Trans>
      </span>
      <button type="button" className="button" disabled={page >= totalPages} onClick={() => onPage(page + 1)}>
        <Trans>Next page</Trans>
      </button>
    </nav>
  );
}
