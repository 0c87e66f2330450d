/**
 * The import screen's documents (contract §13.2): start an import (a GraphQL multipart request: the
 * file travels as a `File` variable), read one while it runs, list the recent ones, cancel one. The
 * export (§13.3) and the errors file are files the REST API streams: gql/request.ts `download`.
 */
import { graphql, type ResultOf } from '../../../gql/graphql.ts';

export const ImportFields = graphql(`
  fragment ImportFields on Import {
    id
    status
    format
    mode
    dryRun
    atomic
    rowsTotal
    rowsDone
    items {
      created
      updated
      unchanged
      failed
    }
    errorsCsvUrl
    createdAt
    startedAt
    finishedAt
    actor {
      type
      name
    }
  }
`);

export const StartImport = graphql(
  `
  mutation StartImport($file: File!, $format: ImportFormat, $mode: ImportMode, $dryRun: Boolean, $atomic: Boolean) {
    startImport(file: $file, format: $format, mode: $mode, dryRun: $dryRun, atomic: $atomic) {
      ...ImportFields
    }
  }
`,
  [ImportFields],
);

/** One import with the first problems it found (the service keeps the first 1,000; the screen shows a few). */
export const ImportDetail = graphql(
  `
  query ImportDetail($id: Int!) {
    import(id: $id) {
      ...ImportFields
      errors {
        row
        handle
        field
        message
      }
    }
  }
`,
  [ImportFields],
);

export const RecentImports = graphql(
  `
  query RecentImports($page: Int, $limit: Int) {
    imports(page: $page, limit: $limit) {
      imports {
        ...ImportFields
      }
      total
    }
  }
`,
  [ImportFields],
);

export const CancelImport = graphql(
  `
  mutation CancelImport($id: Int!) {
    cancelImport(id: $id) {
      ...ImportFields
    }
  }
`,
  [ImportFields],
);

export type ImportStatus = ResultOf<typeof ImportFields>['status'];
export type ImportFormat = ResultOf<typeof ImportFields>['format'];
export type ImportMode = ResultOf<typeof ImportFields>['mode'];

/** Still moving: the screen asks again until it is not. */
export const isRunning = (status: ImportStatus) => status === 'queued' || status === 'running';
