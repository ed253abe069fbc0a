ALTER TABLE "webhook_inbox" ADD COLUMN "company_id" text;--> statement-breakpoint
CREATE INDEX "webhook_inbox_company_idx" ON "webhook_inbox" USING btree ("company_id","received_at");