ALTER TABLE "engagements" ADD COLUMN "move_credit_ms" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "engagements" ADD COLUMN "paused_move" jsonb;--> statement-breakpoint
ALTER TABLE "engagements" ADD COLUMN "due_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "engagements" ADD COLUMN "at_risk_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "engagements" ADD COLUMN "status_reason" text;--> statement-breakpoint
ALTER TABLE "engagements" ADD COLUMN "status_note" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "clock_targets" jsonb;--> statement-breakpoint
CREATE INDEX "engagements_due_idx" ON "engagements" USING btree ("status","due_at");