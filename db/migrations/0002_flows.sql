CREATE TABLE `intake_submissions` (
	`id` text PRIMARY KEY NOT NULL,
	`engagement_id` text NOT NULL,
	`status` text NOT NULL,
	`client_id` text NOT NULL,
	`client_secret_cipher` text,
	`client_secret_mask` text NOT NULL,
	`contacts` text NOT NULL,
	`file_name` text NOT NULL,
	`file_kind` text NOT NULL,
	`row_count` integer NOT NULL,
	`warning_count` integer NOT NULL,
	`counts_by_kind` text NOT NULL,
	`preview` text NOT NULL,
	`submitted_by_id` text,
	`submitted_at` integer NOT NULL,
	`reviewed_by_id` text,
	`reviewed_at` integer,
	`return_note` text,
	`replaced_item_count` integer,
	`credentials_purged_at` integer,
	FOREIGN KEY (`engagement_id`) REFERENCES `engagements`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`submitted_by_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`reviewed_by_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `intake_submissions_engagement_idx` ON `intake_submissions` (`engagement_id`,`submitted_at`);--> statement-breakpoint
CREATE TABLE `migration_items` (
	`id` text PRIMARY KEY NOT NULL,
	`engagement_id` text NOT NULL,
	`submission_id` text NOT NULL,
	`position` integer NOT NULL,
	`source_ref` text NOT NULL,
	`name` text NOT NULL,
	`external_ref` text,
	`records_hint` integer,
	`credentials_cipher` text,
	`credentials_mask` text NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`company_id` text,
	`connection_id` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`last_error_at` integer,
	`outcome_reason` text,
	`checks` text,
	`run_id` text,
	`lease_owner` text,
	`lease_expires_at` integer,
	`next_attempt_at` integer,
	`started_at` integer,
	`finished_at` integer,
	`credentials_purged_at` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`engagement_id`) REFERENCES `engagements`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`submission_id`) REFERENCES `intake_submissions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `migration_items_engagement_idx` ON `migration_items` (`engagement_id`,`position`);--> statement-breakpoint
CREATE INDEX `migration_items_state_idx` ON `migration_items` (`engagement_id`,`state`,`position`);--> statement-breakpoint
CREATE INDEX `migration_items_claim_idx` ON `migration_items` (`run_id`,`state`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `migration_items_lease_idx` ON `migration_items` (`lease_expires_at`);--> statement-breakpoint
CREATE TABLE `migration_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`engagement_id` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`service_target_id` text,
	`item_id` text,
	`requested_by_id` text,
	`requested_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	`status_reason` text,
	`outcome` text,
	`lease_owner` text,
	`lease_expires_at` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`engagement_id`) REFERENCES `engagements`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`service_target_id`) REFERENCES `service_targets`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`requested_by_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `migration_runs_engagement_idx` ON `migration_runs` (`engagement_id`,`requested_at`);--> statement-breakpoint
CREATE INDEX `migration_runs_claim_idx` ON `migration_runs` (`status`,`lease_expires_at`);--> statement-breakpoint
CREATE TABLE `service_calls` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`run_id` text NOT NULL,
	`item_id` text,
	`at` integer NOT NULL,
	`operation` text NOT NULL,
	`method` text NOT NULL,
	`path` text NOT NULL,
	`status` integer,
	`ok` integer NOT NULL,
	`error_kind` text,
	`error_text` text,
	`correlation_id` text,
	`duration_ms` integer NOT NULL,
	`attempts` integer DEFAULT 1 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `service_calls_run_idx` ON `service_calls` (`run_id`,`id`);--> statement-breakpoint
CREATE INDEX `service_calls_item_idx` ON `service_calls` (`item_id`,`id`);--> statement-breakpoint
CREATE TABLE `window_proposals` (
	`id` text PRIMARY KEY NOT NULL,
	`engagement_id` text NOT NULL,
	`status` text NOT NULL,
	`starts_at` integer NOT NULL,
	`ends_at` integer NOT NULL,
	`estimate_seconds` integer NOT NULL,
	`estimate` text NOT NULL,
	`note` text,
	`proposed_by_id` text,
	`proposed_at` integer NOT NULL,
	`decided_by_id` text,
	`decided_at` integer,
	FOREIGN KEY (`engagement_id`) REFERENCES `engagements`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`proposed_by_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`decided_by_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `window_proposals_engagement_idx` ON `window_proposals` (`engagement_id`,`proposed_at`);--> statement-breakpoint
ALTER TABLE `engagements` ADD `waiting_on` text;--> statement-breakpoint
ALTER TABLE `engagements` ADD `waiting_since` integer;