-- When an import's upload was last heard from: the service stages the file as it arrives (before the
-- import is queued), so a process that dies mid-upload leaves an import `queued`, unstaged and with no
-- job. One whose upload has been silent for IMPORT_UPLOAD_ABANDONED_AFTER seconds is ended `failed`
-- by the background work (src/transfer/abandoned-uploads.ts), its staged rows dropped.
ALTER TABLE "imports" ADD COLUMN "upload_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
