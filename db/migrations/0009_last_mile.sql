CREATE TABLE `supplementary_files` (
	`id` text PRIMARY KEY NOT NULL,
	`engagement_id` text NOT NULL,
	`status` text DEFAULT 'submitted' NOT NULL,
	`file_name` text NOT NULL,
	`row_count` integer NOT NULL,
	`warnings` text NOT NULL,
	`submitted_by_id` text NOT NULL,
	`submitted_at` integer NOT NULL,
	`decided_by_id` text,
	`decided_at` integer,
	`note` text,
	FOREIGN KEY (`engagement_id`) REFERENCES `engagements`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`submitted_by_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`decided_by_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `supplementary_files_engagement_idx` ON `supplementary_files` (`engagement_id`,`submitted_at`);--> statement-breakpoint
CREATE TABLE `supplementary_rows` (
	`id` text PRIMARY KEY NOT NULL,
	`file_id` text NOT NULL,
	`item_id` text NOT NULL,
	`position` integer NOT NULL,
	`source_ref` text NOT NULL,
	`credentials_cipher` text,
	`credentials_mask` text NOT NULL,
	`access_token_expires_at` integer,
	`credentials_purged_at` integer,
	FOREIGN KEY (`file_id`) REFERENCES `supplementary_files`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `migration_items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `supplementary_rows_file_idx` ON `supplementary_rows` (`file_id`,`position`);--> statement-breakpoint
CREATE INDEX `supplementary_rows_item_idx` ON `supplementary_rows` (`item_id`);--> statement-breakpoint
CREATE TABLE `watches` (
	`engagement_id` text PRIMARY KEY NOT NULL,
	`status` text DEFAULT 'watching' NOT NULL,
	`started_at` integer NOT NULL,
	`hypercare_ends_at` integer,
	`next_check_at` integer NOT NULL,
	`last_check_at` integer,
	`checks` integer DEFAULT 0 NOT NULL,
	`requests` integer DEFAULT 0 NOT NULL,
	`requests_today` integer DEFAULT 0 NOT NULL,
	`day_started_at` integer,
	`drops` integer DEFAULT 0 NOT NULL,
	`reconnections` integer DEFAULT 0 NOT NULL,
	`last_failure` text,
	`lease_owner` text,
	`lease_expires_at` integer,
	`ended_at` integer,
	FOREIGN KEY (`engagement_id`) REFERENCES `engagements`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `watches_due_idx` ON `watches` (`status`,`next_check_at`);--> statement-breakpoint
ALTER TABLE `engagements` ADD `hypercare_days` integer DEFAULT 7 NOT NULL;--> statement-breakpoint
ALTER TABLE `migration_items` ADD `service_name` text;--> statement-breakpoint
ALTER TABLE `migration_items` ADD `link_url` text;--> statement-breakpoint
ALTER TABLE `migration_items` ADD `reconnect_since` integer;--> statement-breakpoint
ALTER TABLE `migration_items` ADD `reconnected_at` integer;--> statement-breakpoint
ALTER TABLE `migration_items` ADD `dropped_at` integer;--> statement-breakpoint
ALTER TABLE `migration_items` ADD `supplementary_file_id` text;