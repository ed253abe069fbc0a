CREATE TABLE `engagement_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`platform_key` text NOT NULL,
	`companies` integer NOT NULL,
	`preferred_from` integer NOT NULL,
	`preferred_to` integer,
	`note` text,
	`status` text DEFAULT 'open' NOT NULL,
	`requested_by_id` text NOT NULL,
	`requested_at` integer NOT NULL,
	`decided_by_id` text,
	`decided_at` integer,
	`decline_reason` text,
	`engagement_id` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`requested_by_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`decided_by_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`engagement_id`) REFERENCES `engagements`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `engagement_requests_status_idx` ON `engagement_requests` (`status`,`requested_at`);--> statement-breakpoint
CREATE INDEX `engagement_requests_org_idx` ON `engagement_requests` (`organization_id`,`requested_at`);--> statement-breakpoint
CREATE TABLE `window_declines` (
	`id` text PRIMARY KEY NOT NULL,
	`engagement_id` text NOT NULL,
	`reason` text NOT NULL,
	`suggested` text NOT NULL,
	`window_ids` text NOT NULL,
	`declined_by_id` text NOT NULL,
	`declined_at` integer NOT NULL,
	FOREIGN KEY (`engagement_id`) REFERENCES `engagements`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`declined_by_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `window_declines_engagement_idx` ON `window_declines` (`engagement_id`,`declined_at`);