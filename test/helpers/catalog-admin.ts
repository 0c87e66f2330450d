/**
 * Builders for the admin side of the catalogue (contract §4.4, §5): valid item bodies for REST and
 * GraphQL, the admin GraphQL operations, row counts for "nothing was written" checks, admin tokens
 * signed by hand (to make expired ones) and a trigger that makes an insert fail half-way.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { ITEM_GQL_FIELDS } from './catalog.ts';
import { type ApiResponse, BASE_ENV, type TestApp } from './test-app.ts';

export const ITEMS_PATH = '/admin/api/items';

/** A valid REST body for POST /admin/api/items (snake_case); `overrides` replace whole fields. */
export function itemBody(categoryId: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Trail boot',
    category_id: categoryId,
    price: 19.9,
    stock: 40,
    skus: [
      { sku_code: 'BOOT-RED-42', specs: { color: 'red', size: '42' }, price: 21.5, stock: 10 },
      { sku_code: 'BOOT-RED-43', specs: { color: 'red', size: '43' }, stock: 3 },
    ],
    images: ['https://cdn.example.com/boot.jpg', { url: 'https://cdn.example.com/boot-side.jpg', sort_order: 5 }],
    ...overrides,
  };
}

/** The same item as `itemBody`, as a GraphQL `CreateItemInput` (camelCase). */
export function itemInput(categoryId: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Trail boot',
    categoryId,
    price: 19.9,
    stock: 40,
    skus: [
      { skuCode: 'BOOT-RED-42', specs: { color: 'red', size: '42' }, price: 21.5, stock: 10 },
      { skuCode: 'BOOT-RED-43', specs: { color: 'red', size: '43' }, stock: 3 },
    ],
    images: [
      { url: 'https://cdn.example.com/boot.jpg' },
      { url: 'https://cdn.example.com/boot-side.jpg', sortOrder: 5 },
    ],
    ...overrides,
  };
}

/** `body` without `field`. */
export function without(body: Record<string, unknown>, field: string): Record<string, unknown> {
  const { [field]: _dropped, ...rest } = body;
  return rest;
}

/** POST /admin/api/items with an admin token (or none) and optional headers (`Idempotency-Key`). */
export const postItem = (app: TestApp, token: string | undefined, body: unknown, headers?: Record<string, string>) =>
  app.request(ITEMS_PATH, { method: 'POST', body, token, headers });

/** Rows of every catalogue table an item creation writes to. */
export async function catalogCounts(app: TestApp) {
  const p = app.db.prisma;
  const [items, skus, images, idempotencyRecords] = await Promise.all([
    p.item.count(),
    p.sku.count(),
    p.itemImage.count(),
    p.idempotencyRecord.count(),
  ]);
  return { items, skus, images, idempotencyRecords };
}

/** The `field` of every entry of the first GraphQL error's `extensions.errors`. */
export const gqlErrorFields = (res: ApiResponse): string[] =>
  ((res.body?.errors?.[0]?.extensions?.errors ?? []) as Array<{ field: string }>).map((e) => e.field);

/**
 * Signs an admin token by hand with the test secret and the admin system's iss/aud/typ, for
 * lifetimes the server would never issue (already expired). With `app`, its session is recorded
 * too, as a login would (admin tokens name a session, contract §10.4).
 */
export async function signAdminToken(
  opts: { sub: string; iat: number; exp: number; sid?: string },
  app?: TestApp,
): Promise<string> {
  const sid = opts.sid ?? randomUUID();
  if (app) {
    await app.db.prisma.adminSession.create({
      data: { id: sid, adminId: Number(opts.sub), expiresAt: new Date(opts.exp * 1000) },
    });
  }
  return new SignJWT({ sid })
    .setProtectedHeader({ alg: 'HS256', typ: 'admin+jwt' })
    .setIssuer('shop-service:admin')
    .setAudience('shop-admin')
    .setSubject(opts.sub)
    .setJti(randomUUID())
    .setIssuedAt(opts.iat)
    .setExpirationTime(opts.exp)
    .sign(new TextEncoder().encode(BASE_ENV.ADMIN_JWT_SECRET));
}

/**
 * Installs a trigger that raises when an `item_images` row whose url contains `marker` is inserted,
 * so an item creation fails after the item and its SKUs were written. Returns the remover.
 * Plain SQL, so it works on PGlite and PostgreSQL alike.
 */
export async function failImageInserts(app: TestApp, marker: string): Promise<() => Promise<void>> {
  const name = `test_fail_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const pattern = `%${marker.replace(/'/g, "''")}%`;
  await app.db.sql.exec(`
    CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.url LIKE '${pattern}' THEN
        RAISE EXCEPTION 'forced failure from test trigger ${name}';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER ${name} BEFORE INSERT ON item_images FOR EACH ROW EXECUTE FUNCTION ${name}();`);
  return async () => {
    await app.db.sql.exec(`DROP TRIGGER IF EXISTS ${name} ON item_images; DROP FUNCTION IF EXISTS ${name}();`);
  };
}

export const CREATE_ITEM = /* GraphQL */ `
  mutation CreateItem($input: CreateItemInput!, $key: String) {
    createItem(input: $input, idempotencyKey: $key) { ${ITEM_GQL_FIELDS} }
  }`;

export const UPDATE_ITEM = /* GraphQL */ `
  mutation UpdateItem($id: Int!, $input: UpdateItemInput!) {
    updateItem(id: $id, input: $input) { ${ITEM_GQL_FIELDS} }
  }`;

export const DELETE_ITEM = /* GraphQL */ `
  mutation DeleteItem($id: Int!) { deleteItem(id: $id) }`;

export const ITEM_QUERY = /* GraphQL */ `
  query Item($id: Int!) { item(id: $id) { ${ITEM_GQL_FIELDS} } }`;

export const CREATE_CATEGORY = /* GraphQL */ `
  mutation CreateCategory($input: CategoryInput!) {
    createCategory(input: $input) { id name parentId sortOrder }
  }`;

export const UPDATE_CATEGORY = /* GraphQL */ `
  mutation UpdateCategory($id: Int!, $input: CategoryInput!) {
    updateCategory(id: $id, input: $input) { id name parentId sortOrder }
  }`;

export const DELETE_CATEGORY = /* GraphQL */ `
  mutation DeleteCategory($id: Int!) { deleteCategory(id: $id) }`;
