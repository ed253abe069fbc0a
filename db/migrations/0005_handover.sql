CREATE TABLE `handovers` (
	`id` text PRIMARY KEY NOT NULL,
	`engagement_id` text NOT NULL,
	`confirmed_by_id` text,
	`confirmed_at` integer NOT NULL,
	`counts` text NOT NULL,
	`total` integer NOT NULL,
	`acknowledged_by_id` text,
	`acknowledged_at` integer,
	`acknowledgement_note` text,
	`purged_at` integer,
	`purge_trigger` text,
	FOREIGN KEY (`engagement_id`) REFERENCES `engagements`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`confirmed_by_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`acknowledged_by_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `handovers_engagement_unique` ON `handovers` (`engagement_id`);--> statement-breakpoint
CREATE INDEX `handovers_confirmed_idx` ON `handovers` (`confirmed_at`);--> statement-breakpoint
ALTER TABLE `engagements` ADD `status_changed_at` integer;--> statement-breakpoint
CREATE INDEX `migration_items_real_state_idx` ON `migration_items` (`engagement_id`,`rehearsal_run_id`,`state`,`position`);