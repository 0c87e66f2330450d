/**
 * The hand-written migrations must produce exactly what schema.prisma declares: every table, column,
 * type, nullability, default, index and foreign key, compared against the schema's own DMMF
 * (src/generated/dmmf.json, written by `prisma generate`), not against a hand-copied list.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { applyMigrations, readMigrations } from '../../src/db/migrate.ts';
import { openTestDatabase } from '../helpers/test-database.ts';

interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: 'scalar' | 'object' | 'enum';
  type: string;
  isRequired: boolean;
  isList: boolean;
  isId: boolean;
  hasDefaultValue: boolean;
  isUpdatedAt: boolean;
  nativeType?: [string, string[]] | null;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
}
interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
}
interface DmmfIndex {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  dbName?: string;
  algorithm?: string;
  fields: Array<{ name: string; sortOrder?: 'asc' | 'desc'; operatorClass?: string }>;
}
const dmmf = JSON.parse(readFileSync(new URL('../../src/generated/dmmf.json', import.meta.url), 'utf8')) as {
  models: DmmfModel[];
  enums: Array<{ name: string; dbName?: string | null; values: Array<{ name: string; dbName?: string | null }> }>;
  indexes: DmmfIndex[];
};

const tableOf = (m: DmmfModel) => m.dbName ?? m.name;
const columnOf = (f: DmmfField) => f.dbName ?? f.name;
const modelByName = new Map(dmmf.models.map((m) => [m.name, m]));

/** The PostgreSQL type Prisma creates for a field (format_type spelling). */
function expectedType(f: DmmfField): string {
  const [native, args = []] = f.nativeType ?? [];
  switch (native) {
    case 'VarChar':
      return `character varying(${args[0]})`;
    case 'Decimal':
      return `numeric(${args.join(',')})`;
    case 'Timestamptz':
      return `timestamp(${args[0] ?? 6}) with time zone`;
    case 'JsonB':
      return 'jsonb';
    case 'Json':
      return 'json';
    case 'Uuid':
      return 'uuid';
    case 'SmallInt':
      return 'smallint';
    case undefined:
      break;
    default:
      throw new Error(`extend expectedType for @db.${native}`);
  }
  const scalar: Record<string, string> = {
    Int: 'integer',
    BigInt: 'bigint',
    String: 'text',
    Boolean: 'boolean',
    DateTime: 'timestamp(3) without time zone',
    Decimal: 'numeric(65,30)',
    Float: 'double precision',
    Json: 'jsonb',
    Bytes: 'bytea',
  };
  // A Prisma enum is a PostgreSQL enum type of the same name (format_type quotes a mixed-case name).
  if (f.kind === 'enum') return `"${f.type}"`;
  const type = scalar[f.type];
  if (type === undefined) throw new Error(`extend expectedType for ${f.type}`);
  return type;
}

/** Prisma's default constraint names: `<table>_<columns>_{pkey|key|idx|fkey}`. */
function defaultIndexName(table: string, columns: string[], type: DmmfIndex['type']): string {
  if (type === 'id') return `${table}_pkey`;
  return `${table}_${columns.join('_')}_${type === 'unique' ? 'key' : 'idx'}`;
}

let db: Database & { dispose(): Promise<void> };
beforeAll(async () => {
  db = await openTestDatabase({ empty: true });
  await applyMigrations(db.sql, await readMigrations());
});
afterAll(() => db.dispose());

describe('the migrated database matches schema.prisma', () => {
  it('when compared table by table, then the tables are exactly the models', async () => {
    const rows = await db.sql.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
    );
    const actual = rows
      .map((r) => r.table_name)
      .filter((t) => t !== '_prisma_migrations')
      .sort();
    expect(actual).toEqual(dmmf.models.map(tableOf).sort());
  });

  it('when compared column by column, then names, types, nullability and defaults match', async () => {
    const rows = await db.sql.query<{
      table_name: string;
      column_name: string;
      type: string;
      not_null: boolean;
      has_default: boolean;
    }>(
      `SELECT c.relname AS table_name, a.attname AS column_name, format_type(a.atttypid, a.atttypmod) AS type,
              a.attnotnull AS not_null, a.atthasdef AS has_default
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = current_schema() AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
          AND c.relname <> '_prisma_migrations'`,
    );
    const actual = rows
      .map(
        (r) =>
          `${r.table_name}.${r.column_name} ${r.type}${r.not_null ? ' NOT NULL' : ''}${r.has_default ? ' DEFAULT' : ''}`,
      )
      .sort();
    const expected = dmmf.models
      .flatMap((m) =>
        m.fields
          .filter((f) => f.kind === 'scalar' || f.kind === 'enum')
          .map((f) => {
            // @updatedAt is set by Prisma Client, not by a database default.
            const hasDefault = f.hasDefaultValue && !f.isUpdatedAt;
            // A scalar list is a nullable array column in Prisma's own migrations (`TEXT[]`).
            const type = f.isList ? `${expectedType(f)}[]` : expectedType(f);
            const notNull = f.isRequired && !f.isList;
            return `${tableOf(m)}.${columnOf(f)} ${type}${notNull ? ' NOT NULL' : ''}${hasDefault ? ' DEFAULT' : ''}`;
          }),
      )
      .sort();
    expect(actual).toEqual(expected);
  });

  it('when compared enum by enum, then every enum type exists with exactly its values, in order', async () => {
    const rows = await db.sql.query<{ name: string; value: string }>(
      `SELECT t.typname AS name, e.enumlabel AS value
         FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace
        WHERE n.nspname = current_schema() ORDER BY t.typname, e.enumsortorder`,
    );
    const actual: Record<string, string[]> = {};
    for (const r of rows) (actual[r.name] ??= []).push(r.value);
    const expected = Object.fromEntries(
      dmmf.enums.map((e) => [e.dbName ?? e.name, e.values.map((v) => v.dbName ?? v.name)]),
    );
    expect(actual).toEqual(expected);
  });

  it('when compared index by index, then every declared index exists with its name, columns, order, method and uniqueness', async () => {
    const rows = await db.sql.query<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename <> '_prisma_migrations'`,
    );
    const actual = rows.map((r) => r.indexdef.replace(/ ON [\w.]*\.(\w+) /, ' ON $1 ')).sort();
    const expected = dmmf.indexes
      .map((ix) => {
        const model = modelByName.get(ix.model)!;
        const table = tableOf(model);
        const columns = ix.fields.map((f) => columnOf(model.fields.find((mf) => mf.name === f.name)!));
        const name = ix.dbName ?? defaultIndexName(table, columns, ix.type);
        const method = (ix.algorithm ?? 'BTree').toLowerCase();
        const parts = ix.fields.map((f, i) => {
          let part = columns[i];
          if (f.operatorClass) part += ` ${f.operatorClass.toLowerCase()}`;
          if (f.sortOrder === 'desc') part += ' DESC';
          return part;
        });
        const unique = ix.type === 'id' || ix.type === 'unique' ? 'UNIQUE ' : '';
        return `CREATE ${unique}INDEX ${name} ON ${table} USING ${method} (${parts.join(', ')})`;
      })
      .sort();
    expect(actual).toEqual(expected);
  });

  it('when compared relation by relation, then every foreign key exists with its columns and delete rule', async () => {
    const rows = await db.sql.query<{ name: string; table_name: string; def: string }>(
      `SELECT con.conname AS name, rel.relname AS table_name, pg_get_constraintdef(con.oid) AS def
         FROM pg_constraint con JOIN pg_class rel ON rel.oid = con.conrelid JOIN pg_namespace n ON n.oid = rel.relnamespace
        WHERE con.contype = 'f' AND n.nspname = current_schema()`,
    );
    const actual = rows.map((r) => `${r.name}: ${r.def}`).sort();
    const rule = (onDelete?: string) =>
      ({ Cascade: 'ON DELETE CASCADE', Restrict: 'ON DELETE RESTRICT', SetNull: 'ON DELETE SET NULL', NoAction: '' })[
        onDelete ?? 'Restrict'
      ];
    const expected = dmmf.models
      .flatMap((m) =>
        m.fields
          .filter((f) => f.kind === 'object' && f.relationFromFields?.length)
          .map((f) => {
            const target = modelByName.get(f.type)!;
            const from = f.relationFromFields!.map((n) => columnOf(m.fields.find((x) => x.name === n)!));
            const to = f.relationToFields!.map((n) => columnOf(target.fields.find((x) => x.name === n)!));
            const name = `${tableOf(m)}_${from.join('_')}_fkey`;
            return `${name}: FOREIGN KEY (${from.join(', ')}) REFERENCES ${tableOf(target)}(${to.join(', ')}) ON UPDATE CASCADE ${rule(f.relationOnDelete)}`.trim();
          }),
      )
      .sort();
    expect(actual).toEqual(expected);
  });
});
