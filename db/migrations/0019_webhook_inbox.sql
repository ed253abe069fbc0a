CREATE TABLE `target_events` (
	`target_id` text PRIMARY KEY NOT NULL,
	`public_url` text,
	`last_event_at` integer,
	`last_event_type` text,
	`last_failure_at` integer,
	`last_failure` text,
	`failures` integer DEFAULT 0 NOT NULL,
	`paused_until` integer,
	`pause_reason` text,
	FOREIGN KEY (`target_id`) REFERENCES `service_targets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `webhook_consumers` (
	`id` text PRIMARY KEY NOT NULL,
	`target_id` text NOT NULL,
	`engagement_id` text,
	`consumer_id` text NOT NULL,
	`secret_cipher` text NOT NULL,
	`url` text NOT NULL,
	`created_at` integer NOT NULL,
	`removed_at` integer,
	FOREIGN KEY (`target_id`) REFERENCES `service_targets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`engagement_id`) REFERENCES `engagements`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_consumers_target_idx` ON `webhook_consumers` (`target_id`,`removed_at`);--> statement-breakpoint
CREATE INDEX `webhook_consumers_engagement_idx` ON `webhook_consumers` (`engagement_id`);--> statement-breakpoint
CREATE TABLE `webhook_inbox` (
	`id` text PRIMARY KEY NOT NULL,
	`target_id` text NOT NULL,
	`message_id` text NOT NULL,
	`event_type` text NOT NULL,
	`generated_at` integer,
	`received_at` integer NOT NULL,
	`payload` text NOT NULL,
	`processed_at` integer,
	`attempts` integer DEFAULT 0 NOT NULL,
	`error` text,
	`next_attempt_at` integer,
	`claim_token` text,
	`claim_expires_at` integer,
	FOREIGN KEY (`target_id`) REFERENCES `service_targets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_inbox_message_unique` ON `webhook_inbox` (`target_id`,`message_id`);--> statement-breakpoint
CREATE INDEX `webhook_inbox_due_idx` ON `webhook_inbox` (`processed_at`,`received_at`);--> statement-breakpoint
ALTER TABLE `migration_items` ADD `connection_event_at` integer;