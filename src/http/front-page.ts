/**
 * `GET /`: where a newcomer lands (the address `npm start` prints). A browser gets a small page saying
 * what this service is and linking every tool — the REST reference, GraphiQL, the OpenAPI document,
 * the probes, the metrics where the main port serves them — with the state of the demo accounts; an
 * API client (`Accept: application/json`) gets the same links as JSON. No inline script, so the page
 * keeps the Content-Security-Policy of /docs.
 */
import { type RequestHandler, Router } from 'express';

export interface FrontPageOptions {
  /** GraphiQL is served at GET /graphql (GRAPHIQL). */
  graphiql: boolean;
  /** /metrics is served on this port (development; production serves it on METRICS_PORT only). */
  metrics: boolean;
  /** Development: say how the demo accounts stand (never in production). */
  demoStatus?: () => Promise<DemoStatus>;
  /** The HTML page's Content-Security-Policy (security-headers.ts). */
  pagePolicy: RequestHandler;
}

export interface DemoStatus {
  /** The bootstrap admin's username, if that account exists. */
  bootstrapAdmin?: string;
  admins: number;
  items: number;
}

interface Link {
  rel: string;
  href: string;
  title: string;
}

/** Where to read more in the repository (the files are not served): the README's sections, then docs/. */
const README_SECTIONS = ['Quick start', 'Quick tour', 'How-tos'];
const DOCS = [
  ['api.md', 'the catalogue and accounts in detail'],
  ['search.md', 'search'],
  ['team.md', 'roles, audit log, two-factor login, sessions, API keys'],
  ['operations.md', 'configuration, production, deployment'],
  ['performance.md', 'figures and their history'],
  ['architecture.md', 'how a request flows, the layout'],
  ['development.md', 'commands and tests'],
  ['contract.md', 'the API contract'],
] as const;

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function linksOf(opts: FrontPageOptions): Link[] {
  return [
    { rel: 'docs', href: '/docs', title: 'REST reference (Swagger UI): every route, "Try it out"' },
    {
      rel: 'graphql',
      href: '/graphql',
      title: opts.graphiql ? 'GraphQL endpoint and GraphiQL explorer' : 'GraphQL endpoint (POST application/json)',
    },
    { rel: 'openapi', href: '/openapi.json', title: 'OpenAPI 3.1 document of the REST routes' },
    { rel: 'healthz', href: '/healthz', title: 'Liveness probe: the process is up' },
    { rel: 'readyz', href: '/readyz', title: 'Readiness probe: the database answers' },
    ...(opts.metrics ? [{ rel: 'metrics', href: '/metrics', title: 'Prometheus metrics' }] : []),
  ];
}

function page(links: Link[], demo: DemoStatus | undefined): string {
  const demoHtml = demo
    ? `<h2>Demo accounts</h2>
  <ul>
    <li>${
      demo.bootstrapAdmin
        ? `Bootstrap admin <code>${escapeHtml(demo.bootstrapAdmin)}</code> exists — its password was printed once at the first start.`
        : `${demo.admins} admin account(s); the bootstrap admin is not among them.`
    } Lost it? Stop the service and run <code>npm run cli -- reset-password admin ${demo.bootstrapAdmin ? escapeHtml(demo.bootstrapAdmin) : '&lt;username&gt;'}</code>.</li>
    <li>${demo.items} item(s) in the catalogue. Customers sign up at <code>POST /api/v1/auth/register</code>.</li>
  </ul>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>Shop API</title>
  <link rel="icon" href="/favicon.ico" />
  <style>
    body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
    code { background: #f3f3f3; padding: 0 .25rem; border-radius: 3px; }
    li { margin: .3rem 0; }
  </style>
</head>
<body>
  <h1>Shop API</h1>
  <p>The catalogue-and-accounts back end of an online shop: a product catalogue with search, customer
  accounts (e-mail and WeChat mini-program logins), and the administrators who run it (roles, audit log,
  API keys), over REST for storefronts and GraphQL for admin tools. Orders, cart and payments are another
  service's.</p>
  <h2>Tools</h2>
  <ul>
${links.map((l) => `    <li><a href="${l.href}">${l.href}</a> — ${escapeHtml(l.title)}</li>`).join('\n')}
  </ul>
  ${demoHtml}
  <h2>Read more</h2>
  <p>In the repository: README.md (${README_SECTIONS.map((s) => `<em>${s}</em>`).join(', ')}), and in docs/:</p>
  <ul>
${DOCS.map(([file, what]) => `    <li><code>docs/${file}</code> — ${what}</li>`).join('\n')}
  </ul>
</body>
</html>`;
}

/** The route; HTML for a browser, JSON for everyone else. */
export function frontPageRoutes(opts: FrontPageOptions): Router {
  const router = Router();
  const links = linksOf(opts);
  router.get('/', async (req, res, next) => {
    try {
      const demo = await opts.demoStatus?.();
      res.set('Cache-Control', 'no-cache');
      if (req.accepts(['json', 'html']) === 'html') {
        return opts.pagePolicy(req, res, () => void res.type('html').send(page(links, demo)));
      }
      res.json({
        service: 'shop-service',
        links: Object.fromEntries(links.map((l) => [l.rel, { href: l.href, title: l.title }])),
        ...(demo ? { demo } : {}),
      });
    } catch (err) {
      next(err);
    }
  });
  return router;
}
