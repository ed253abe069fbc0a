CREATE TABLE "target_events" (
	"target_id" text PRIMARY KEY NOT NULL,
	"public_url" text,
	"last_event_at" timestamp (3) with time zone,
	"last_event_type" text,
	"last_failure_at" timestamp (3) with time zone,
	"last_failure" text,
	"failures" integer DEFAULT 0 NOT NULL,
	"paused_until" timestamp (3) with time zone,
	"pause_reason" text
);
--> statement-breakpoint
CREATE TABLE "webhook_consumers" (
	"id" text PRIMARY KEY NOT NULL,
	"target_id" text NOT NULL,
	"engagement_id" text,
	"consumer_id" text NOT NULL,
	"secret_cipher" text NOT NULL,
	"url" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"removed_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "webhook_inbox" (
	"id" text PRIMARY KEY NOT NULL,
	"target_id" text NOT NULL,
	"message_id" text NOT NULL,
	"event_type" text NOT NULL,
	"generated_at" timestamp (3) with time zone,
	"received_at" timestamp (3) with time zone NOT NULL,
	"payload" jsonb NOT NULL,
	"processed_at" timestamp (3) with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"error" text,
	"next_attempt_at" timestamp (3) with time zone,
	"claim_token" text,
	"claim_expires_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "migration_items" ADD COLUMN "connection_event_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "target_events" ADD CONSTRAINT "target_events_target_id_service_targets_id_fk" FOREIGN KEY ("target_id") REFERENCES "public"."service_targets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_consumers" ADD CONSTRAINT "webhook_consumers_target_id_service_targets_id_fk" FOREIGN KEY ("target_id") REFERENCES "public"."service_targets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_consumers" ADD CONSTRAINT "webhook_consumers_engagement_id_engagements_id_fk" FOREIGN KEY ("engagement_id") REFERENCES "public"."engagements"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_inbox" ADD CONSTRAINT "webhook_inbox_target_id_service_targets_id_fk" FOREIGN KEY ("target_id") REFERENCES "public"."service_targets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_consumers_target_idx" ON "webhook_consumers" USING btree ("target_id","removed_at");--> statement-breakpoint
CREATE INDEX "webhook_consumers_engagement_idx" ON "webhook_consumers" USING btree ("engagement_id");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_inbox_message_unique" ON "webhook_inbox" USING btree ("target_id","message_id");--> statement-breakpoint
CREATE INDEX "webhook_inbox_due_idx" ON "webhook_inbox" USING btree ("processed_at","received_at");