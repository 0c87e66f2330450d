/** Prints the Pothos schema to schema.graphql (test/graphql/schema-file.test.ts fails when it is stale). */
import { writeFileSync } from 'node:fs';
import { schemaSDL } from '../src/graphql/schema-sdl.ts';

const target = new URL('../schema.graphql', import.meta.url);
writeFileSync(target, schemaSDL());
console.log(`wrote ${target.pathname}`);
