CREATE TABLE `worker_processes` (
	`owner` text PRIMARY KEY NOT NULL,
	`host` text NOT NULL,
	`pid` integer NOT NULL,
	`holds_lock` integer DEFAULT false NOT NULL,
	`started_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `migration_items` ADD `lease_token` text;--> statement-breakpoint
ALTER TABLE `migration_runs` ADD `lease_token` text;