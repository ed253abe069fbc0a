CREATE TABLE `callback_checks` (
	`id` text PRIMARY KEY NOT NULL,
	`engagement_id` text NOT NULL,
	`service_target_id` text NOT NULL,
	`platform_key` text NOT NULL,
	`status` text NOT NULL,
	`company_id` text,
	`connection_id` text,
	`refusal` text,
	`error_status` integer,
	`error_text` text,
	`correlation_id` text,
	`started_by_id` text NOT NULL,
	`started_at` integer NOT NULL,
	`checked_at` integer,
	`finished_at` integer,
	`company_deleted_at` integer,
	FOREIGN KEY (`engagement_id`) REFERENCES `engagements`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`service_target_id`) REFERENCES `service_targets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`started_by_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `callback_checks_engagement_idx` ON `callback_checks` (`engagement_id`,`started_at`);