CREATE TABLE "rate_budget_members" (
	"id" text PRIMARY KEY NOT NULL,
	"target_id" text NOT NULL,
	"machine_id" text NOT NULL,
	"shares_window" boolean DEFAULT true NOT NULL,
	"joined_at" timestamp (3) with time zone NOT NULL,
	"heartbeat_at" timestamp (3) with time zone NOT NULL,
	"quota_period" text,
	"quota_taken" integer DEFAULT 0 NOT NULL,
	"quota_used" integer DEFAULT 0 NOT NULL,
	"quota_ahead" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_budget_quotas" (
	"target_id" text NOT NULL,
	"period" text NOT NULL,
	"quota" integer NOT NULL,
	"granted" integer DEFAULT 0 NOT NULL,
	"resets_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "rate_budget_quotas_target_id_period_pk" PRIMARY KEY("target_id","period")
);
--> statement-breakpoint
ALTER TABLE "rate_budget_members" ADD CONSTRAINT "rate_budget_members_target_id_service_targets_id_fk" FOREIGN KEY ("target_id") REFERENCES "public"."service_targets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rate_budget_quotas" ADD CONSTRAINT "rate_budget_quotas_target_id_service_targets_id_fk" FOREIGN KEY ("target_id") REFERENCES "public"."service_targets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "rate_budget_members_target_idx" ON "rate_budget_members" USING btree ("target_id","machine_id");--> statement-breakpoint
CREATE INDEX "rate_budget_members_heartbeat_idx" ON "rate_budget_members" USING btree ("heartbeat_at");--> statement-breakpoint
CREATE INDEX "rate_budget_quotas_resets_idx" ON "rate_budget_quotas" USING btree ("resets_at");