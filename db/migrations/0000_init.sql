CREATE TABLE `audit_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`actor_id` text,
	`actor_label` text NOT NULL,
	`action` text NOT NULL,
	`target_type` text NOT NULL,
	`target_id` text NOT NULL,
	`engagement_id` text,
	`organization_id` text,
	`before` text,
	`after` text
);
--> statement-breakpoint
CREATE INDEX `audit_engagement_idx` ON `audit_events` (`engagement_id`,`id`);--> statement-breakpoint
CREATE INDEX `audit_target_idx` ON `audit_events` (`target_type`,`target_id`);--> statement-breakpoint
CREATE TABLE `engagement_steps` (
	`engagement_id` text NOT NULL,
	`step` integer NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`completed_by_id` text,
	`completed_at` integer,
	`evidence` text,
	`reopened_reason` text,
	`reopened_by_id` text,
	`reopened_at` integer,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`engagement_id`, `step`),
	FOREIGN KEY (`engagement_id`) REFERENCES `engagements`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`completed_by_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`reopened_by_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `engagements` (
	`id` text PRIMARY KEY NOT NULL,
	`reference` text NOT NULL,
	`organization_id` text NOT NULL,
	`platform_key` text NOT NULL,
	`owner_id` text NOT NULL,
	`service_target_id` text,
	`status` text DEFAULT 'active' NOT NULL,
	`current_step` integer DEFAULT 1 NOT NULL,
	`window_starts_at` integer,
	`window_ends_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`service_target_id`) REFERENCES `service_targets`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `engagements_reference_unique` ON `engagements` (`reference`);--> statement-breakpoint
CREATE INDEX `engagements_org_idx` ON `engagements` (`organization_id`,`updated_at`);--> statement-breakpoint
CREATE INDEX `engagements_status_step_idx` ON `engagements` (`status`,`current_step`);--> statement-breakpoint
CREATE INDEX `engagements_step_idx` ON `engagements` (`current_step`);--> statement-breakpoint
CREATE INDEX `engagements_owner_idx` ON `engagements` (`owner_id`);--> statement-breakpoint
CREATE INDEX `engagements_platform_idx` ON `engagements` (`platform_key`);--> statement-breakpoint
CREATE INDEX `engagements_updated_idx` ON `engagements` (`updated_at`,`reference`);--> statement-breakpoint
CREATE TABLE `invitations` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`organization_id` text,
	`token_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`accepted_at` integer,
	`revoked_at` integer,
	`invited_by_id` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`invited_by_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invitations_token_unique` ON `invitations` (`token_hash`);--> statement-breakpoint
CREATE INDEX `invitations_email_idx` ON `invitations` (`email`);--> statement-breakpoint
CREATE TABLE `mail_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`to` text NOT NULL,
	`subject` text NOT NULL,
	`text` text NOT NULL,
	`transport` text NOT NULL,
	`sent_at` integer,
	`error` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `mail_outbox_created_idx` ON `mail_outbox` (`created_at`);--> statement-breakpoint
CREATE TABLE `organizations` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `organizations_name_unique` ON `organizations` (lower("name"));--> statement-breakpoint
CREATE TABLE `service_targets` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`base_url` text NOT NULL,
	`api_key_cipher` text NOT NULL,
	`kind` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sign_in_throttle` (
	`key` text PRIMARY KEY NOT NULL,
	`failures` integer NOT NULL,
	`window_started_at` integer NOT NULL,
	`locked_until` integer
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`organization_id` text,
	`password_hash` text,
	`active` integer DEFAULT true NOT NULL,
	`last_sign_in_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE INDEX `users_org_idx` ON `users` (`organization_id`);