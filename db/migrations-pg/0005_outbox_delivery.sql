ALTER TABLE "mail_outbox" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD COLUMN "next_attempt_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD COLUMN "failed_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD COLUMN "claim_token" text;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD COLUMN "claim_expires_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "mail_outbox_due_idx" ON "mail_outbox" USING btree ("sent_at","failed_at","next_attempt_at");--> statement-breakpoint
-- Rows written before the outbox was delivered by the worker: each had its one attempt; one never
-- marked sent is not sent now, months late, but shown as not delivered.
UPDATE "mail_outbox" SET "attempts" = 1;--> statement-breakpoint
UPDATE "mail_outbox" SET "failed_at" = "created_at", "error" = coalesce("error", 'Not sent before the outbox was delivered by the worker.') WHERE "sent_at" IS NULL;