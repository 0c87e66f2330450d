/** What a screen shows when it cannot load (the router's error component): the service's own words. */
import { Trans } from '@lingui/react/macro';
import type { ErrorComponentProps } from '@tanstack/react-router';
import { ApiError } from '../gql/errors.ts';

export function ErrorPage({ error, reset }: ErrorComponentProps) {
  const forbidden = error instanceof ApiError && error.code === 'FORBIDDEN';
  return (
    <section className="notice" aria-labelledby="error-title">
      <h1 id="error-title">{forbidden ? <Trans>Not allowed</Trans> : <Trans>Something went wrong</Trans>}</h1>
      <p role="alert">{error instanceof Error ? error.message : String(error)}</p>
      {!forbidden && (
        <button type="button" className="button" onClick={reset}>
          <Trans>Try again</Trans>
        </button>
      )}
    </section>
  );
}
