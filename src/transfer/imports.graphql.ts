/** Imports in GraphQL (contract §13.2): `startImport` (a multipart upload), `import`, `imports`, `cancelImport`. */
import type { Import } from '../generated/prisma/client.ts';
import { builder } from '../graphql/builder.ts';
import { pageType } from '../graphql/page-type.ts';
import { pageSizeCost } from '../validation/paging.ts';
import { MAX_LISTED_ERRORS } from './import-job.ts';
import { importIdInput, listImportsInput, startImportInput } from './imports.schema.ts';
import {
  cancelImport,
  errorsCsvPath,
  IMPORT_FORMATS,
  IMPORT_MODES,
  listImports,
  readImport,
  startImport,
} from './imports.service.ts';

/** A file of a GraphQL multipart request (graphql-yoga puts the upload's File in the variable). */
builder.scalarType('File', {
  description:
    'A file sent as a GraphQL multipart request (https://github.com/jaydenseric/graphql-multipart-request-spec).',
  serialize: () => {
    throw new Error('File is an input type');
  },
  parseValue: (value) => value as never,
});

const ImportStatusType = builder.enumType('ImportStatus', {
  values: ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const,
});
const ImportFormatType = builder.enumType('ImportFormat', {
  description: '`csv` (one row per SKU) or `jsonl` (one item per line), contract §13.1.',
  values: IMPORT_FORMATS,
});
const ImportModeType = builder.enumType('ImportMode', {
  description:
    '`upsert` creates missing handles and updates existing ones; `create` only creates; `update` only updates.',
  values: IMPORT_MODES,
});

interface ImportError {
  row: number;
  handle: string | null;
  field: string | null;
  message: string;
}

const ImportErrorType = builder.objectRef<ImportError>('ImportError').implement({
  description: 'A problem of a row (the header is row 1; for JSON Lines, the line).',
  fields: (t) => ({
    row: t.exposeInt('row'),
    handle: t.exposeString('handle', { nullable: true }),
    field: t.exposeString('field', { nullable: true, description: 'The column (CSV) or field (JSON Lines).' }),
    message: t.exposeString('message'),
  }),
});

const ImportCountsType = builder.objectRef<Import>('ImportCounts').implement({
  description: 'Items by outcome (a dry run counts what a real run would do).',
  fields: (t) => ({
    created: t.int({ resolve: (i) => i.createdCount }),
    updated: t.int({ resolve: (i) => i.updatedCount }),
    unchanged: t.int({ resolve: (i) => i.unchangedCount }),
    failed: t.int({ resolve: (i) => i.failedCount }),
  }),
});

const ImportActorType = builder.objectRef<Import>('ImportActor').implement({
  description: 'Who started the import.',
  fields: (t) => ({
    type: t.string({ resolve: (i) => i.actorType }),
    id: t.int({ nullable: true, resolve: (i) => i.actorId }),
    name: t.string({ nullable: true, resolve: (i) => i.actorName }),
  }),
});

export const ImportType = builder.objectRef<Import>('Import').implement({
  description: 'A bulk import of items and its progress (contract §13.2).',
  fields: (t) => ({
    id: t.exposeInt('id'),
    status: t.field({ type: ImportStatusType, resolve: (i) => i.status }),
    format: t.field({ type: ImportFormatType, resolve: (i) => i.format }),
    mode: t.field({ type: ImportModeType, resolve: (i) => i.mode }),
    dryRun: t.exposeBoolean('dryRun'),
    atomic: t.exposeBoolean('atomic'),
    rowsTotal: t.exposeInt('rowsTotal', {
      nullable: true,
      description: 'Rows of the file (header excluded), once read.',
    }),
    rowsDone: t.exposeInt('rowsDone', { description: 'Rows of the items done so far.' }),
    items: t.field({ type: ImportCountsType, resolve: (i) => i }),
    errors: t.field({
      type: [ImportErrorType],
      description: `The first ${MAX_LISTED_ERRORS} problems; every failed row is in the errors file.`,
      resolve: (i) => i.errors as unknown as ImportError[],
    }),
    errorsCsvUrl: t.string({
      description: 'Every failed row with its error (CSV).',
      resolve: (i) => errorsCsvPath(i.id),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
    actor: t.field({ type: ImportActorType, resolve: (i) => i }),
  }),
});

const ImportPageType = pageType({
  name: 'ImportPage',
  description: 'One page of imports, newest first.',
  of: ImportType,
  list: 'imports',
  total: 'Every import.',
});

builder.mutationField('startImport', (t) =>
  t.field({
    type: ImportType,
    description:
      'Admin: imports items from a CSV or JSON Lines file (contract §13.1) as a job; answers the queued import at ' +
      'once. `dryRun` validates and counts without writing; `atomic` writes nothing unless every item is valid. ' +
      'Past IMPORT_MAX_BYTES → PAYLOAD_TOO_LARGE.',
    authScopes: { catalogWrite: true },
    args: t.validate(
      {
        file: t.arg({ type: 'File', required: true }),
        format: t.arg({ type: ImportFormatType, description: 'Default `csv`.' }),
        mode: t.arg({ type: ImportModeType, description: 'Default `upsert`.' }),
        dryRun: t.arg.boolean({ description: 'Default false.' }),
        atomic: t.arg.boolean({ description: 'Default false.' }),
      },
      startImportInput,
    ),
    resolve: (_root, args, ctx) => startImport(ctx, args),
  }),
);

builder.queryField('import', (t) =>
  t.field({
    type: ImportType,
    nullable: true,
    description: 'Admin: one import with its progress; null when there is none.',
    authScopes: { catalogRead: true },
    args: t.validate({ id: t.arg.int({ required: true }) }, importIdInput),
    resolve: (_root, args, ctx) => readImport(ctx, args.id),
  }),
);

builder.queryField('imports', (t) =>
  t.field({
    type: ImportPageType,
    description: "Admin: every admin's imports, newest first.",
    authScopes: { catalogRead: true },
    complexity: (args) => ({ field: 1, multiplier: pageSizeCost(args.limit) }),
    args: t.validate(
      {
        page: t.arg.int({ description: '>= 1, default 1.' }),
        limit: t.arg.int({ description: '1..100, default 20.' }),
      },
      listImportsInput,
    ),
    resolve: (_root, args, ctx) => listImports(ctx, args),
  }),
);

builder.mutationField('cancelImport', (t) =>
  t.field({
    type: ImportType,
    description:
      'Admin: stops an import after its current batch (what was committed stays; status `cancelled`); a finished ' +
      'import is answered unchanged.',
    authScopes: { catalogWrite: true },
    args: t.validate({ id: t.arg.int({ required: true }) }, importIdInput),
    resolve: (_root, args, ctx) => cancelImport(ctx, args.id),
  }),
);
