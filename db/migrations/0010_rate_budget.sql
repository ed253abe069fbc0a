CREATE TABLE `rate_budget_members` (
	`id` text PRIMARY KEY NOT NULL,
	`target_id` text NOT NULL,
	`machine_id` text NOT NULL,
	`shares_window` integer DEFAULT true NOT NULL,
	`joined_at` integer NOT NULL,
	`heartbeat_at` integer NOT NULL,
	`quota_period` text,
	`quota_taken` integer DEFAULT 0 NOT NULL,
	`quota_used` integer DEFAULT 0 NOT NULL,
	`quota_ahead` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`target_id`) REFERENCES `service_targets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `rate_budget_members_target_idx` ON `rate_budget_members` (`target_id`,`machine_id`);--> statement-breakpoint
CREATE INDEX `rate_budget_members_heartbeat_idx` ON `rate_budget_members` (`heartbeat_at`);--> statement-breakpoint
CREATE TABLE `rate_budget_quotas` (
	`target_id` text NOT NULL,
	`period` text NOT NULL,
	`quota` integer NOT NULL,
	`granted` integer DEFAULT 0 NOT NULL,
	`resets_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`target_id`, `period`),
	FOREIGN KEY (`target_id`) REFERENCES `service_targets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `rate_budget_quotas_resets_idx` ON `rate_budget_quotas` (`resets_at`);