-- The event log and webhooks (contract §14).
--
-- Events are appended in the transaction of the change they describe (an outbox), as its LAST
-- statement: `UPDATE event_counter … RETURNING` takes the next `seq` values and holds the counter's row
-- lock until that transaction commits, so the next writer's numbers come after this commit — `seq`
-- order is commit order, and a rolled-back writer gives its numbers back (no gaps). A reader paging
-- `after=n` therefore never meets a smaller `seq` later (src/events/event-log.ts). The lock is held
-- only from the events' insert to the commit, so writers queue for that instant, not for their work.

-- CreateEnum
CREATE TYPE "WebhookDeliveryStatus" AS ENUM ('pending', 'succeeded', 'failed');

-- CreateTable
CREATE TABLE "events" (
    "seq" INTEGER NOT NULL,
    "id" VARCHAR(40) NOT NULL,
    "type" VARCHAR(40) NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor" JSON,
    "data" JSON NOT NULL,

    CONSTRAINT "events_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "event_counter" (
    "id" INTEGER NOT NULL,
    "last" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "event_counter_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "event_dispatch" (
    "id" INTEGER NOT NULL,
    "after" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "event_dispatch_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhooks" (
    "id" SERIAL NOT NULL,
    "url" VARCHAR(2048) NOT NULL,
    "events" TEXT[],
    "description" VARCHAR(500) NOT NULL DEFAULT '',
    "secret" VARCHAR(100) NOT NULL,
    "previous_secret" VARCHAR(100),
    "previous_secret_until" TIMESTAMPTZ(3),
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "disabled_reason" VARCHAR(200),
    "failing_since" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhooks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" SERIAL NOT NULL,
    "webhook_id" INTEGER NOT NULL,
    "event_id" VARCHAR(40) NOT NULL,
    "attempt" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "status" "WebhookDeliveryStatus" NOT NULL DEFAULT 'pending',
    "response_status" INTEGER,
    "response_body" TEXT,
    "duration_ms" INTEGER,
    "next_attempt_at" TIMESTAMPTZ(3),
    "job_id" UUID,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "events_id_key" ON "events"("id");
CREATE INDEX "events_at_idx" ON "events"("at");
CREATE INDEX "events_type_seq_idx" ON "events"("type", "seq");
CREATE INDEX "webhook_deliveries_webhook_id_id_idx" ON "webhook_deliveries"("webhook_id", "id");
CREATE INDEX "webhook_deliveries_job_id_idx" ON "webhook_deliveries"("job_id");
CREATE UNIQUE INDEX "webhook_deliveries_webhook_id_event_id_attempt_key" ON "webhook_deliveries"("webhook_id", "event_id", "attempt");

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_fkey" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The one counter row and the dispatcher's one cursor row.
INSERT INTO "event_counter" ("id", "last") VALUES (1, 0);
INSERT INTO "event_dispatch" ("id", "after") VALUES (1, 0);

-- Webhook deliveries are jobs of pg-boss's `webhook-deliveries` queue: one attempt per job, the next
-- attempt a new job sent with its backoff (src/events/delivery-job.ts); a lease that runs out (a
-- process died mid-attempt) gives the job back to be tried again.
SELECT pgboss.create_queue('webhook-deliveries', '{"policy":"standard","retryLimit":100000,"retryDelay":1,"expireInSeconds":30,"retentionMinutes":1440}');

-- A schedule passing is a change too (§14.1: `item.published` / `item.unpublished` exactly once per
-- passing): the flip now answers which items it flipped, and its caller appends their events in the
-- flip's transaction (src/catalog/visibility-schedule.ts). Still one conditional UPDATE under the
-- search lock: of many processes flipping at once, one changes the rows and reports them.
DROP FUNCTION "item_visibility_flip"();
CREATE FUNCTION "item_visibility_flip"() RETURNS TABLE ("id" integer, "visible" boolean) LANGUAGE plpgsql AS $$
BEGIN
  IF NOT COALESCE("item_visibility_due"() <= now(), false) THEN
    RETURN;
  END IF;
  PERFORM "search_index_lock"();
  -- Read again under the lock: another process may have flipped them meanwhile.
  IF NOT COALESCE("item_visibility_due"() <= now(), false) THEN
    RETURN;
  END IF;
  RETURN QUERY
  UPDATE "items" i SET visible = "item_visible"(i.status, i.publish_at, i.unpublish_at, now())
   WHERE (NOT i.visible AND i.status = 'active' AND i.publish_at <= now()
          AND (i.unpublish_at IS NULL OR i.unpublish_at > now()))
      OR (i.visible AND i.unpublish_at <= now())
  RETURNING i.id, i.visible;
END
$$;
