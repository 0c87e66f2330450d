/** The schema as SDL, the form committed in schema.graphql. */
import { printSchema } from 'graphql';
import { schema } from './schema.ts';

export function schemaSDL(): string {
  return `${printSchema(schema)}\n`;
}
