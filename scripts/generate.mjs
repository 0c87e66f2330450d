#!/usr/bin/env node
// Runs `prisma generate` (client, Pothos types, DMMF JSON) into src/generated.
// Prisma's CLI insists on locating a schema-engine binary before it generates, although generate
// never runs it; where the engine could not be downloaded we point it at a harmless existing file.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let prismaBin;
try {
  prismaBin = require.resolve('prisma/build/index.js');
} catch {
  // Installed without dev dependencies and with src/generated shipped: nothing to do.
  if (existsSync(new URL('../src/generated/prisma/client.ts', import.meta.url))) process.exit(0);
  console.error('prisma is not installed; run `npm install` with dev dependencies');
  process.exit(1);
}
const env = { ...process.env };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
env.PRISMA_HIDE_UPDATE_MESSAGE = '1';
const r = spawnSync(process.execPath, [prismaBin, 'generate'], { stdio: 'inherit', env });
process.exit(r.status ?? 1);
