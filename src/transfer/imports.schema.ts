/** Input rules of the import operations (contract §13.2), declared once for GraphQL and REST. */
import { z } from 'zod';
import { pageArgs } from '../validation/paging.ts';
import { INT32_MAX, int } from '../validation/rules.ts';
import { IMPORT_FORMATS, IMPORT_MODES } from './imports.service.ts';
import { isUploadedFile, type UploadedFile } from './uploaded-file.ts';

export const startImportInput = z.object({
  file: z
    .any()
    .refine(isUploadedFile, { error: 'must be a file (the request body, or a GraphQL multipart upload)' })
    .transform((v) => v as UploadedFile)
    .meta({ type: 'string', format: 'binary' }),
  format: z
    .enum(IMPORT_FORMATS, { error: `must be one of ${IMPORT_FORMATS.join(', ')}` })
    .nullish()
    .transform((v) => v ?? 'csv'),
  mode: z
    .enum(IMPORT_MODES, { error: `must be one of ${IMPORT_MODES.join(', ')}` })
    .nullish()
    .transform((v) => v ?? 'upsert'),
  dryRun: z
    .boolean({ error: 'must be true or false' })
    .nullish()
    .transform((v) => v ?? false),
  atomic: z
    .boolean({ error: 'must be true or false' })
    .nullish()
    .transform((v) => v ?? false),
});

export const importIdInput = z.object({ id: int(1, INT32_MAX, 'must be a positive integer') });
export const listImportsInput = z.object({ ...pageArgs });
