-- Operator trust (contract §10): admin roles, admin sessions, two-factor login, API keys and the
-- append-only audit log. Written by hand in `prisma migrate` format (schema.prisma is the source).

-- CreateEnum
CREATE TYPE "AdminRole" AS ENUM ('owner', 'catalog_manager', 'support', 'viewer');

-- AlterTable: every admin that exists before roles is an owner (contract §10.1); new ones default to viewer.
ALTER TABLE "admins" ALTER COLUMN "role" DROP DEFAULT;
ALTER TABLE "admins" ALTER COLUMN "role" TYPE "AdminRole" USING ('owner'::"AdminRole");
ALTER TABLE "admins" ALTER COLUMN "role" SET DEFAULT 'viewer';
ALTER TABLE "admins" ADD COLUMN     "totp_secret" VARCHAR(64),
ADD COLUMN     "totp_pending_secret" VARCHAR(64),
ADD COLUMN     "totp_last_step" INTEGER;

-- AlterTable: existing sessions were last used, as far as is known, when their newest token was issued.
ALTER TABLE "customer_sessions" ADD COLUMN     "last_used_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "ip" VARCHAR(64),
ADD COLUMN     "user_agent" VARCHAR(200);
UPDATE "customer_sessions" SET "last_used_at" = "current_issued_at";

-- AlterTable: Idempotency-Keys belong to an actor — an admin or, now, an API key (`admin:1`, `api_key:3`).
ALTER TABLE "idempotency_records" ADD COLUMN "owner" VARCHAR(40);
UPDATE "idempotency_records" SET "owner" = 'admin:' || "admin_id";
ALTER TABLE "idempotency_records" ALTER COLUMN "owner" SET NOT NULL;
DROP INDEX "idempotency_records_admin_id_key_key";
ALTER TABLE "idempotency_records" DROP COLUMN "admin_id";
CREATE UNIQUE INDEX "idempotency_records_owner_key_key" ON "idempotency_records"("owner", "key");

-- CreateTable
CREATE TABLE "admin_sessions" (
    "id" UUID NOT NULL,
    "admin_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "ip" VARCHAR(64),
    "user_agent" VARCHAR(200),

    CONSTRAINT "admin_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "admin_recovery_codes" (
    "id" SERIAL NOT NULL,
    "admin_id" INTEGER NOT NULL,
    "code_hash" VARCHAR(64) NOT NULL,
    "used_at" TIMESTAMPTZ(3),

    CONSTRAINT "admin_recovery_codes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" SERIAL NOT NULL,
    "name" VARCHAR(100) NOT NULL,
    "role" "AdminRole" NOT NULL,
    "prefix" VARCHAR(16) NOT NULL,
    "secret_hash" VARCHAR(64) NOT NULL,
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_log" (
    "id" SERIAL NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor_type" VARCHAR(16) NOT NULL,
    "actor_id" INTEGER,
    "actor_name" VARCHAR(100),
    "action" VARCHAR(64) NOT NULL,
    "target_type" VARCHAR(32) NOT NULL,
    "target_id" INTEGER,
    "changes" JSONB NOT NULL DEFAULT '{}',
    "request_id" VARCHAR(128),
    "ip" VARCHAR(64),

    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "admin_sessions_admin_id_idx" ON "admin_sessions"("admin_id");

-- CreateIndex
CREATE UNIQUE INDEX "admin_recovery_codes_admin_id_code_hash_key" ON "admin_recovery_codes"("admin_id", "code_hash");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_prefix_key" ON "api_keys"("prefix");

-- CreateIndex
CREATE INDEX "audit_log_at_id_idx" ON "audit_log"("at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "audit_log_target_type_target_id_idx" ON "audit_log"("target_type", "target_id");

-- CreateIndex
CREATE INDEX "audit_log_actor_type_actor_id_idx" ON "audit_log"("actor_type", "actor_id");

-- AddForeignKey
ALTER TABLE "admin_sessions" ADD CONSTRAINT "admin_sessions_admin_id_fkey" FOREIGN KEY ("admin_id") REFERENCES "admins"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "admin_recovery_codes" ADD CONSTRAINT "admin_recovery_codes_admin_id_fkey" FOREIGN KEY ("admin_id") REFERENCES "admins"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The audit log is append-only (contract §10.2): the database itself refuses to change or remove an
-- entry, so no bug and no hand-written statement can rewrite history.
CREATE FUNCTION "audit_log_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER "audit_log_append_only"
  BEFORE UPDATE OR DELETE ON "audit_log"
  FOR EACH ROW EXECUTE FUNCTION "audit_log_append_only"();

CREATE TRIGGER "audit_log_no_truncate"
  BEFORE TRUNCATE ON "audit_log"
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_log_append_only"();
