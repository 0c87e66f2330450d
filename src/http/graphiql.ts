/**
 * GraphiQL at `GET /graphql` (browsers): a small HTML page plus hashed, immutable assets taken from
 * graphql-yoga's self-contained build, instead of Yoga's one 9 MB page with everything inline. No
 * inline script runs, so the page keeps a strict Content-Security-Policy (contract §7.5), and a
 * browser downloads the assets once.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type Response, Router } from 'express';
import { keepable, type PreparedBody, prepareBody, sendPrepared } from './prepared-body.ts';

export const ASSET_PATH = '/graphql/assets';

interface Asset {
  prepared: PreparedBody;
  type: string;
}

interface GraphiQLBuild {
  /** Asset file name → content. */
  assets: Map<string, Asset>;
  page: string;
}

/** The contents of yoga's GraphiQL build (js, css, the three Monaco workers). */
type YogaGraphiQL = Record<'js' | 'css' | 'editorWorkerService' | 'jsonWorker' | 'graphqlWorker', string>;

/**
 * The first tab a new visitor sees: the shop's common operations, ready to run. The passwords are
 * the README quick tour's (test/graphql/graphiql.test.ts runs every operation here).
 */
export const EXAMPLE_TAB = `# The shop's GraphQL API: press ▶ (Ctrl-Enter)
# and pick one. Public reads need no token.
# Admin operations need an admin token:
#  1. run AdminLogin (the password printed at the
#     first start, or the README quick tour's),
#  2. put its accessToken after "Bearer " under
#     Headers below,
#  3. run CreateItem.
# CustomerLogin's token works the same way for Me.

query ListItems {
  items(page: 1, limit: 5) {
    total totalPages
    items {
      id name price stock category { id name }
      skus { skuCode specs price stock }
      images { url }
    }
  }
}

query Categories {
  categories { id name parentId sortOrder }
}

# Search: Chinese words, pinyin ("paoxie"), synonyms;
# best match first, with facet counts.
query Search {
  items(keyword: "跑鞋", limit: 5) {
    total
    items { id name price category { name } }
    facets {
      categories { id name count }
      price { min max buckets { from to count } }
      specs { name values { value count } }
      inStock
    }
  }
}

query Suggestions {
  searchSuggestions(q: "pao", limit: 5) { text kind id }
}

mutation AdminLogin {
  adminLogin(username: "admin", password: "demo-admin-password") {
    accessToken expiresIn admin { id username role }
  }
}

mutation CreateItem {
  createItem(input: {
    name: "Summit hiking boot", categoryId: 3, price: "129.00", stock: 40
    skus: [{ skuCode: "SUMMIT-42", specs: { size: "42" }, stock: 10 }]
    images: [{ url: "https://cdn.example.com/boot.jpg" }]
  }) {
    id name price category { name }
    skus { id skuCode } images { url sortOrder }
  }
}

mutation CustomerLogin {
  login(username: "demo@example.com", password: "demo-password") {
    accessToken expiresIn user { id username nickname }
  }
}

query Me {
  me { id username nickname avatarUrl }
}
`;

/**
 * The second tab: running the shop with a team (contract §10), with an owner's token (AdminLogin of
 * the first tab). test/graphql/graphiql.test.ts runs every operation but the ones needing a code.
 */
export const TEAM_TAB = `# Running the shop with a team (owner token in Headers).
# Roles: owner, catalog_manager, support, viewer;
# each operation's docs name the roles it needs.

query Team {
  adminMe { id username role }
  admins { id username role disabled }
  adminSessions { id createdAt lastUsedAt ip userAgent current }
}

mutation CreateCatalogManager {
  createAdmin(input: { username: "catalog-lead", password: "change-me-please", role: catalog_manager }) {
    id username role
  }
}

# An ERP's key: the secret is shown once.
mutation CreateApiKey {
  createApiKey(input: { name: "ERP sync", role: catalog_manager }) {
    secret apiKey { id prefix role createdAt }
  }
}

# The catalogue's lifecycle (contract §12): drafts, schedules,
# handles; versions guard every write (updateItem's expectedVersion).
query AdminItems {
  adminItems(status: [draft, archived], limit: 5) {
    total items { id name status publishAt unpublishAt handle version }
  }
}

query ItemByHandle {
  adminItem(handle: "trail-boot") { id name status handle version }
}

mutation ScheduledLaunch {
  createItem(input: {
    name: "Spring launch jacket", categoryId: 3, price: "199.00", stock: 10
    publishAt: "2030-03-01T02:00:00Z", skus: [], images: []
  }) { id handle status publishAt version }
}

# An order service takes stock: all or nothing, and a retry with the
# same key counts once.
mutation TakeStock {
  adjustStock(adjustments: [{ skuId: 1, delta: -1 }], idempotencyKey: "order-1001") {
    id skuCode stock
  }
}

query AuditLog {
  auditLog(limit: 10) {
    total
    entries { at action actor { type name } target { type id } changes requestId }
  }
}

# Two-factor login: scan qrSvg (or type secret) into an
# authenticator app, then confirm with its current code.
mutation EnrollTotp {
  enrollTotp { secret otpauthUri }
}

mutation ConfirmTotp {
  confirmTotp(code: "123456")
}
`;

/** The Headers editor of every tab, ready for a token. */
export const EXAMPLE_HEADERS = '{\n  "Authorization": "Bearer "\n}';

const hashed = (name: string, ext: string, content: string) =>
  `${name}.${createHash('sha256').update(content).digest('hex').slice(0, 12)}.${ext}`;

function build(endpoint: string, title: string): GraphiQLBuild {
  // The package exports only its renderer; the build beside it is read by path (CommonJS).
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve('@graphql-yoga/render-graphiql'));
  const yoga = require(join(dir, 'graphiql.js')) as YogaGraphiQL;
  const assets = new Map<string, Asset>();
  const add = (name: string, ext: string, content: string) => {
    const file = hashed(name, ext, content);
    assets.set(file, {
      prepared: keepable(prepareBody(content)),
      type: ext === 'css' ? 'text/css' : 'application/javascript',
    });
    return `${ASSET_PATH}/${file}`;
  };
  const workers = {
    editorWorkerService: add('editor.worker', 'js', yoga.editorWorkerService),
    json: add('json.worker', 'js', yoga.jsonWorker),
    graphql: add('graphql.worker', 'js', yoga.graphqlWorker),
  };
  const options = {
    endpoint,
    title,
    defaultTabs: [
      { query: EXAMPLE_TAB, headers: EXAMPLE_HEADERS },
      { query: TEAM_TAB, headers: EXAMPLE_HEADERS },
    ],
    defaultHeaders: EXAMPLE_HEADERS,
    // The Headers editor is open from the start: it is where the token goes.
    defaultEditorToolsVisibility: 'headers',
    isHeadersEditorEnabled: true,
    // A token typed into it is not kept in the browser's storage after the tab closes.
    shouldPersistHeaders: false,
  };
  // What yoga's page runs inline, as a file: workers come from our origin, not from blob: URLs.
  const init = add(
    'init',
    'js',
    `self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (_id, label) => (${JSON.stringify(workers)})[label] };\n` +
      `YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'), ${JSON.stringify(options)});\n`,
  );
  const css = add('graphiql', 'css', yoga.css);
  const js = add('graphiql', 'js', yoga.js);
  const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>${title}</title>
  <link rel="icon" href="/favicon.ico" />
  <link rel="stylesheet" href="${css}" />
</head>
<body id="body" class="no-focus-outline">
  <noscript>You need to enable JavaScript to run GraphiQL.</noscript>
  <div id="root"></div>
  <script src="${js}"></script>
  <script src="${init}"></script>
</body>
</html>`;
  return { assets, page };
}

/** True for a browser navigating to the endpoint (it asks for HTML and sends no query). */
export function wantsGraphiQL(accept: string | undefined, query: Record<string, unknown>): boolean {
  return Boolean(accept?.includes('text/html')) && query.query === undefined;
}

export interface GraphiQL {
  /** The assets (`/favicon.ico` is the app's, http/favicon.ts). */
  readonly routes: Router;
  /** Sends the page. */
  sendPage(res: Response): void;
}

export function createGraphiQL(opts: { endpoint: string; title: string }): GraphiQL {
  // Built on first use: 9 MB of strings a server that never shows GraphiQL need not hold.
  let built: GraphiQLBuild | undefined;
  const get = () => (built ??= build(opts.endpoint, opts.title));
  const routes = Router();
  routes.get(`${ASSET_PATH}/:file`, (req, res, next) => {
    const asset = get().assets.get(req.params.file);
    if (!asset) return next();
    // The name holds the content's hash, so the file never changes under its URL. Compressed once,
    // not per request: the script alone is 5 MB (about 0.2 s of brotli each time).
    res.type(asset.type);
    sendPrepared(req, res, asset.prepared, 'public, max-age=31536000, immutable')?.catch(next);
  });
  return {
    routes,
    sendPage: (res) => void res.set('Cache-Control', 'no-cache').type('html').send(get().page),
  };
}
