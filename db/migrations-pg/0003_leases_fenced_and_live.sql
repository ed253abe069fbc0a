CREATE TABLE "worker_processes" (
	"owner" text PRIMARY KEY NOT NULL,
	"host" text NOT NULL,
	"pid" integer NOT NULL,
	"holds_lock" boolean DEFAULT false NOT NULL,
	"started_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "migration_items" ADD COLUMN "lease_token" text;--> statement-breakpoint
ALTER TABLE "migration_runs" ADD COLUMN "lease_token" text;