ALTER TABLE "engagements" ADD COLUMN "move_credit_ms" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "engagements" ADD COLUMN "paused_move" jsonb;--> statement-breakpoint
ALTER TABLE "engagements" ADD COLUMN "status_reason" text;--> statement-breakpoint
ALTER TABLE "engagements" ADD COLUMN "status_note" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "clock_targets" jsonb;