CREATE TABLE "engagement_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"platform_key" text NOT NULL,
	"companies" integer NOT NULL,
	"preferred_from" timestamp (3) with time zone NOT NULL,
	"preferred_to" timestamp (3) with time zone,
	"note" text,
	"status" text DEFAULT 'open' NOT NULL,
	"requested_by_id" text NOT NULL,
	"requested_at" timestamp (3) with time zone NOT NULL,
	"decided_by_id" text,
	"decided_at" timestamp (3) with time zone,
	"decline_reason" text,
	"engagement_id" text
);
--> statement-breakpoint
CREATE TABLE "window_declines" (
	"id" text PRIMARY KEY NOT NULL,
	"engagement_id" text NOT NULL,
	"reason" text NOT NULL,
	"suggested" jsonb NOT NULL,
	"window_ids" jsonb NOT NULL,
	"declined_by_id" text NOT NULL,
	"declined_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "engagement_requests" ADD CONSTRAINT "engagement_requests_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "engagement_requests" ADD CONSTRAINT "engagement_requests_requested_by_id_users_id_fk" FOREIGN KEY ("requested_by_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "engagement_requests" ADD CONSTRAINT "engagement_requests_decided_by_id_users_id_fk" FOREIGN KEY ("decided_by_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "engagement_requests" ADD CONSTRAINT "engagement_requests_engagement_id_engagements_id_fk" FOREIGN KEY ("engagement_id") REFERENCES "public"."engagements"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "window_declines" ADD CONSTRAINT "window_declines_engagement_id_engagements_id_fk" FOREIGN KEY ("engagement_id") REFERENCES "public"."engagements"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "window_declines" ADD CONSTRAINT "window_declines_declined_by_id_users_id_fk" FOREIGN KEY ("declined_by_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "engagement_requests_status_idx" ON "engagement_requests" USING btree ("status","requested_at");--> statement-breakpoint
CREATE INDEX "engagement_requests_org_idx" ON "engagement_requests" USING btree ("organization_id","requested_at");--> statement-breakpoint
CREATE INDEX "window_declines_engagement_idx" ON "window_declines" USING btree ("engagement_id","declined_at");