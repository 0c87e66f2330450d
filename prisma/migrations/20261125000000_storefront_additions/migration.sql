-- AlterTable
ALTER TABLE "items" ADD COLUMN     "description" VARCHAR(5000) NOT NULL DEFAULT '';

-- CreateIndex
CREATE INDEX "items_price_asc_idx" ON "items"("price", "id" DESC);

-- CreateIndex
CREATE INDEX "items_price_desc_idx" ON "items"("price" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "items_name_id_idx" ON "items"("name", "id" DESC);
