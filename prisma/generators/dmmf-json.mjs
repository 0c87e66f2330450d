#!/usr/bin/env node
// A Prisma generator that writes the schema's full DMMF (models, native types, indexes) as JSON.
// test/db/schema-drift.test.ts compares the migrated database against it, so the hand-written
// migrations are checked against schema.prisma itself rather than a hand-copied list.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import gh from '@prisma/generator-helper';

gh.generatorHandler({
  onManifest: () => ({ prettyName: 'DMMF JSON', defaultOutput: './dmmf.json' }),
  onGenerate: async ({ dmmf, generator }) => {
    const out = generator.output?.value;
    if (!out) throw new Error('dmmf-json generator needs an output path');
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, `${JSON.stringify(dmmf.datamodel, null, 2)}\n`);
  },
});
