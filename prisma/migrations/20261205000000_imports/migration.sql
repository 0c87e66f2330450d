-- Bulk imports (contract §13.2). An import is a row here and a job of pg-boss's `imports` queue: the
-- uploaded file is kept in chunks until the job has read it, its rows are staged (one row per file row),
-- grouped into items by handle, and written batch by batch; `cursor` is the last item number whose batch
-- committed — in the batch's own transaction, so a resumed run continues exactly after it.

-- CreateEnum
CREATE TYPE "ImportStatus" AS ENUM ('queued', 'running', 'succeeded', 'failed', 'cancelled');
CREATE TYPE "ImportFormat" AS ENUM ('csv', 'jsonl');
CREATE TYPE "ImportMode" AS ENUM ('upsert', 'create', 'update');

-- CreateTable
CREATE TABLE "imports" (
    "id" SERIAL NOT NULL,
    "status" "ImportStatus" NOT NULL DEFAULT 'queued',
    "format" "ImportFormat" NOT NULL,
    "mode" "ImportMode" NOT NULL,
    "dry_run" BOOLEAN NOT NULL,
    "atomic" BOOLEAN NOT NULL,
    "file_bytes" INTEGER NOT NULL DEFAULT 0,
    "columns" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "rows_total" INTEGER,
    "rows_done" INTEGER NOT NULL DEFAULT 0,
    "items_total" INTEGER,
    "created_count" INTEGER NOT NULL DEFAULT 0,
    "updated_count" INTEGER NOT NULL DEFAULT 0,
    "unchanged_count" INTEGER NOT NULL DEFAULT 0,
    "failed_count" INTEGER NOT NULL DEFAULT 0,
    "errors" JSONB NOT NULL DEFAULT '[]',
    "error_count" INTEGER NOT NULL DEFAULT 0,
    "staged" BOOLEAN NOT NULL DEFAULT false,
    "cursor" INTEGER NOT NULL DEFAULT 0,
    "checked" BOOLEAN NOT NULL DEFAULT false,
    "cancel_requested" BOOLEAN NOT NULL DEFAULT false,
    "actor_type" VARCHAR(16) NOT NULL,
    "actor_id" INTEGER,
    "actor_name" VARCHAR(100),
    "ip" VARCHAR(64),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "imports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "import_chunks" (
    "import_id" INTEGER NOT NULL,
    "seq" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,

    CONSTRAINT "import_chunks_pkey" PRIMARY KEY ("import_id","seq")
);

-- CreateTable
CREATE TABLE "import_rows" (
    "import_id" INTEGER NOT NULL,
    "row_no" INTEGER NOT NULL,
    "handle" TEXT NOT NULL,
    "cells" JSONB NOT NULL,

    CONSTRAINT "import_rows_pkey" PRIMARY KEY ("import_id","row_no")
);

-- CreateTable
CREATE TABLE "import_items" (
    "import_id" INTEGER NOT NULL,
    "item_no" INTEGER NOT NULL,
    "handle" TEXT NOT NULL,

    CONSTRAINT "import_items_pkey" PRIMARY KEY ("import_id","item_no")
);

-- CreateTable
CREATE TABLE "import_failures" (
    "import_id" INTEGER NOT NULL,
    "row_no" INTEGER NOT NULL,
    "cells" JSONB NOT NULL,
    "error" TEXT NOT NULL,

    CONSTRAINT "import_failures_pkey" PRIMARY KEY ("import_id","row_no")
);

-- CreateIndex
CREATE INDEX "imports_created_at_id_idx" ON "imports"("created_at" DESC, "id" DESC);
CREATE INDEX "import_rows_import_id_handle_idx" ON "import_rows"("import_id", "handle");

-- AddForeignKey
ALTER TABLE "import_chunks" ADD CONSTRAINT "import_chunks_import_id_fkey" FOREIGN KEY ("import_id") REFERENCES "imports"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "import_rows" ADD CONSTRAINT "import_rows_import_id_fkey" FOREIGN KEY ("import_id") REFERENCES "imports"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "import_items" ADD CONSTRAINT "import_items_import_id_fkey" FOREIGN KEY ("import_id") REFERENCES "imports"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "import_failures" ADD CONSTRAINT "import_failures_import_id_fkey" FOREIGN KEY ("import_id") REFERENCES "imports"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The queue imports run on: a job expires (its process died, or stopped) after its lease without
-- finishing, and is then tried again — by any process — from the import's last committed batch. A run is
-- a slice of a few seconds that queues the next slice before it completes (src/transfer/import-job.ts).
-- `stately`: per import (the singleton key) at most one job waits and one runs.
SELECT pgboss.create_queue('imports', '{"policy":"stately","retryLimit":100000,"retryDelay":1,"expireInSeconds":30,"retentionMinutes":1440}');
