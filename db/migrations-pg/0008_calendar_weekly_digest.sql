CREATE TABLE "weekly_digests_sent" (
	"user_id" text NOT NULL,
	"week" text NOT NULL,
	"sent_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "weekly_digests_sent_user_id_week_pk" PRIMARY KEY("user_id","week")
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "calendar_feed_hash" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "calendar_feed_token" text;--> statement-breakpoint
ALTER TABLE "window_proposals" ADD COLUMN "estimate_requests" integer;--> statement-breakpoint
ALTER TABLE "window_proposals" ADD COLUMN "estimate_companies" integer;--> statement-breakpoint
ALTER TABLE "weekly_digests_sent" ADD CONSTRAINT "weekly_digests_sent_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "users_calendar_feed_unique" ON "users" USING btree ("calendar_feed_hash");--> statement-breakpoint
CREATE INDEX "window_proposals_time_idx" ON "window_proposals" USING btree ("starts_at","ends_at");