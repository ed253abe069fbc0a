CREATE TABLE "callback_checks" (
	"id" text PRIMARY KEY NOT NULL,
	"engagement_id" text NOT NULL,
	"service_target_id" text NOT NULL,
	"platform_key" text NOT NULL,
	"status" text NOT NULL,
	"company_id" text,
	"connection_id" text,
	"refusal" text,
	"error_status" integer,
	"error_text" text,
	"correlation_id" text,
	"started_by_id" text NOT NULL,
	"started_at" timestamp (3) with time zone NOT NULL,
	"checked_at" timestamp (3) with time zone,
	"finished_at" timestamp (3) with time zone,
	"company_deleted_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "callback_checks" ADD CONSTRAINT "callback_checks_engagement_id_engagements_id_fk" FOREIGN KEY ("engagement_id") REFERENCES "public"."engagements"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "callback_checks" ADD CONSTRAINT "callback_checks_service_target_id_service_targets_id_fk" FOREIGN KEY ("service_target_id") REFERENCES "public"."service_targets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "callback_checks" ADD CONSTRAINT "callback_checks_started_by_id_users_id_fk" FOREIGN KEY ("started_by_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "callback_checks_engagement_idx" ON "callback_checks" USING btree ("engagement_id","started_at");