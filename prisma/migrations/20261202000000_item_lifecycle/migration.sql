-- The catalogue's lifecycle (contract §12.1): an item's status and publishing schedule, a handle that
-- names it in URLs and files, and a version that grows with every change (§12.2's lost-update check).
-- Items made before this migration are `active` with no schedule (they were public), at version 1.
-- Their handles are made here from the name's ASCII letters and digits (`Trail boot` → `trail-boot`),
-- `item-<id>` when none are left (a Chinese name), with `-<id>` after a name another item also gives;
-- new items get theirs from the service, Chinese as pinyin.

-- CreateEnum
CREATE TYPE "ItemStatus" AS ENUM ('draft', 'active', 'archived');

-- AlterTable
ALTER TABLE "items" ADD COLUMN "status" "ItemStatus" NOT NULL DEFAULT 'active',
ADD COLUMN "publish_at" TIMESTAMPTZ(3),
ADD COLUMN "unpublish_at" TIMESTAMPTZ(3),
ADD COLUMN "handle" VARCHAR(100),
ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;

WITH made AS (
  SELECT id,
         COALESCE(NULLIF(left(trim(BOTH '-' FROM lower(regexp_replace(name, '[^A-Za-z0-9]+', '-', 'g'))), 90), ''),
                  'item-' || id) AS handle
    FROM "items"
), numbered AS (
  SELECT id, handle, row_number() OVER (PARTITION BY handle ORDER BY id) AS n FROM made
)
UPDATE "items" i
   SET "handle" = CASE WHEN n.n = 1 THEN n.handle ELSE n.handle || '-' || i.id END
  FROM numbered n
 WHERE n.id = i.id;

-- A row written without the service (a test's or the bench's SQL) gets a unique handle all the same.
ALTER TABLE "items" ALTER COLUMN "handle" SET DEFAULT ('item-'::text || replace((gen_random_uuid())::text, '-'::text, ''::text)),
ALTER COLUMN "handle" SET NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "items_handle_key" ON "items"("handle");
