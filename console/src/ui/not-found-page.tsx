import { Trans } from '@lingui/react/macro';
import { Link } from '@tanstack/react-router';

export function NotFoundPage() {
  return (
    <section className="notice" aria-labelledby="not-found-title">
      <h1 id="not-found-title">
        <Trans>Page not found</Trans>
      </h1>
      <p>
        <Link to="/items">
          <Trans>Go to the items</Trans>
        </Link>
      </p>
    </section>
  );
}
