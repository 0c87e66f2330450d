// Prisma CLI configuration. The service applies migrations itself at start (src/db/migrate.ts);
// this file lets `npx prisma migrate deploy` do the same where Prisma's engines can be downloaded.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? '' },
});
