/**
 * "Try a query": a keyword run through the storefront's own search (the public `items`, so only
 * what a shopper may see) with its facets — categories, price buckets, specs, in stock — each with
 * the count it would give. Clicking a facet filters by it (the same facet's other choices keep their
 * counts, as the service counts a facet without its own filter); clicking it again lets it go.
 */
import { useLingui as useLinguiRuntime } from '@lingui/react';
import { Plural, Trans, useLingui } from '@lingui/react/macro';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { request } from '../../../gql/request.ts';
import { type TrialFacets, TrialSearch, type TrialVariables } from './search.gql.ts';

interface PriceChoice {
  from: number;
  to: number;
  /** The last bucket also holds the top price: no upper bound. */
  last: boolean;
}

interface Filters {
  categoryId?: number;
  price?: PriceChoice;
  specs: Record<string, string[]>;
  inStock: boolean;
}

const NO_FILTERS: Filters = { specs: {}, inStock: false };
const RESULTS = 20;

/** The list's arguments for a keyword and the chosen facets (§9.2: `to` is exclusive, `maxPrice` inclusive). */
export function trialVariables(keyword: string, filters: Filters): TrialVariables {
  const specs = Object.entries(filters.specs)
    .filter(([, values]) => values.length)
    .map(([name, values]) => ({ name, values }));
  const { price } = filters;
  return {
    keyword: keyword || null,
    categoryId: filters.categoryId ?? null,
    minPrice: price ? price.from : null,
    // Prices are whole cents: "below `to`" is at most one cent less.
    maxPrice: price && !price.last ? Math.round(price.to * 100 - 1) / 100 : null,
    inStock: filters.inStock || null,
    specs: specs.length ? specs : null,
    limit: RESULTS,
  };
}

export function TrialQuery({ generation }: { generation: number }) {
  const { t } = useLingui();
  const { i18n } = useLinguiRuntime();
  const headingId = useId();
  const resultsId = useId();
  const [typed, setTyped] = useState('');
  const [keyword, setKeyword] = useState<string | null>(null);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  // Each "Try it" asks the service again, even for the same keyword (a synonym may have changed since).
  const [run, setRun] = useState(0);

  const variables = keyword === null ? null : trialVariables(keyword, filters);
  const search = useQuery({
    // `generation` moves on with every synonym change, so the trial is asked again.
    queryKey: ['item', 'list', { storefront: true, generation, run, ...variables }],
    queryFn: ({ signal }) => request(TrialSearch, variables!, signal),
    enabled: variables !== null,
    placeholderData: keepPreviousData,
  });
  const answer = search.data?.items;
  const money = new Intl.NumberFormat(i18n.locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const count = new Intl.NumberFormat(i18n.locale);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setKeyword(typed.trim());
    setFilters(NO_FILTERS);
    setRun((n) => n + 1);
  };
  const filtered =
    filters.categoryId !== undefined ||
    filters.price !== undefined ||
    filters.inStock ||
    Object.values(filters.specs).some((v) => v.length);
  const total = answer?.total ?? 0;

  return (
    <section className="screen-section" aria-labelledby={headingId}>
      <h2 id={headingId}>
        <Trans>Try a query</Trans>
      </h2>
      <p className="muted hint">
        <Trans>What a shopper gets from the storefront’s search: active, published items only, best match first.</Trans>
      </p>
      <search>
        <form className="filters" onSubmit={submit}>
          <div className="field">
            <label htmlFor={`${headingId}-keyword`}>{t`Keyword`}</label>
            <input
              id={`${headingId}-keyword`}
              type="search"
              value={typed}
              maxLength={100}
              onChange={(e) => setTyped(e.target.value)}
            />
          </div>
          <button type="submit" className="button primary">
            <Trans>Try it</Trans>
          </button>
        </form>
      </search>

      {search.isError && (
        <p className="form-error" role="alert">
          {search.error.message}
        </p>
      )}

      {variables !== null && (
        <div className="trial" aria-busy={search.isFetching}>
          {answer && (
            <FacetPanel
              facets={answer.facets}
              filters={filters}
              onChange={setFilters}
              money={money}
              count={count}
              filtered={filtered}
            />
          )}
          <div className="trial-results">
            <p id={resultsId} className="result-line" aria-live="polite">
              {search.isPending ? (
                <Trans>Searching…</Trans>
              ) : (
                <>
                  <Plural value={total} one="# result" other="# results" />
                  {search.isFetching && (
                    <span className="muted">
                      {' '}
                      <Trans>(updating…)</Trans>
                    </span>
                  )}
                </>
              )}
            </p>
            {answer && answer.items.length > 0 && (
              <ol className="result-list" aria-labelledby={resultsId}>
                {answer.items.map((item) => (
                  <li key={item.id}>
                    <span>
                      <span className="item-name">{item.name}</span>
                      <span className="muted">{item.category.name}</span>
                    </span>
                    <span className="number">{money.format(item.price)}</span>
                  </li>
                ))}
              </ol>
            )}
            {answer && total > answer.items.length && (
              <p className="muted">
                <Trans>
                  The first {RESULTS} of {total}.
                </Trans>
              </p>
            )}
          </div>
        </div>
      )}
    </section>
  );
}

function FacetPanel({
  facets,
  filters,
  onChange,
  money,
  count,
  filtered,
}: {
  facets: TrialFacets;
  filters: Filters;
  onChange: (filters: Filters) => void;
  money: Intl.NumberFormat;
  count: Intl.NumberFormat;
  filtered: boolean;
}) {
  const { t } = useLingui();
  const toggleSpec = (name: string, value: string) => {
    const values = filters.specs[name] ?? [];
    const next = values.includes(value) ? values.filter((v) => v !== value) : [...values, value];
    onChange({ ...filters, specs: { ...filters.specs, [name]: next } });
  };
  const buckets = facets.price?.buckets ?? [];
  return (
    <aside className="facets" aria-label={t`Facets`}>
      {filtered && (
        <button type="button" className="button" onClick={() => onChange(NO_FILTERS)}>
          <Trans>Clear filters</Trans>
        </button>
      )}
      <FacetGroup title={t({ message: 'Categories', context: 'search facet' })}>
        {facets.categories.map((c) => (
          <Facet
            key={c.id}
            label={c.name}
            count={count.format(c.count)}
            pressed={filters.categoryId === c.id}
            onClick={() => onChange({ ...filters, categoryId: filters.categoryId === c.id ? undefined : c.id })}
          />
        ))}
      </FacetGroup>
      <FacetGroup title={t`Price`}>
        {buckets.map((b, index) => {
          const from = money.format(b.from);
          const to = money.format(b.to);
          const pressed = filters.price?.from === b.from && filters.price.to === b.to;
          return (
            <Facet
              key={b.from}
              label={t`${from} to ${to}`}
              count={count.format(b.count)}
              pressed={pressed}
              onClick={() =>
                onChange({
                  ...filters,
                  price: pressed ? undefined : { from: b.from, to: b.to, last: index === buckets.length - 1 },
                })
              }
            />
          );
        })}
      </FacetGroup>
      {facets.specs.map((spec) => (
        <FacetGroup key={spec.name} title={spec.name}>
          {spec.values.map((v) => (
            <Facet
              key={v.value}
              label={v.value}
              count={count.format(v.count)}
              pressed={filters.specs[spec.name]?.includes(v.value) ?? false}
              onClick={() => toggleSpec(spec.name, v.value)}
            />
          ))}
        </FacetGroup>
      ))}
      <FacetGroup title={t`Stock`}>
        <Facet
          label={t`In stock`}
          count={count.format(facets.inStock)}
          pressed={filters.inStock}
          onClick={() => onChange({ ...filters, inStock: !filters.inStock })}
        />
      </FacetGroup>
    </aside>
  );
}

function FacetGroup({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  const empty = Array.isArray(children) && children.length === 0;
  if (empty) return null;
  return (
    <div className="facet-group">
      <h3 id={id}>{title}</h3>
      <ul className="facet-list" aria-labelledby={id}>
        {children}
      </ul>
    </div>
  );
}

function Facet({
  label,
  count,
  pressed,
  onClick,
}: {
  label: string;
  count: string;
  pressed: boolean;
  onClick: () => void;
}) {
  return (
    <li>
      <button type="button" className="facet" aria-pressed={pressed} onClick={onClick}>
        {label} <span className="facet-count">({count})</span>
      </button>
    </li>
  );
}
