CREATE TABLE `reconnect_link_opens` (
	`id` text PRIMARY KEY NOT NULL,
	`engagement_id` text NOT NULL,
	`item_id` text NOT NULL,
	`at` integer NOT NULL,
	`outcome` text NOT NULL,
	`detail` text,
	`status` integer,
	`correlation_id` text,
	FOREIGN KEY (`engagement_id`) REFERENCES `engagements`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `migration_items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `reconnect_link_opens_item_idx` ON `reconnect_link_opens` (`item_id`,`at`);--> statement-breakpoint
CREATE INDEX `reconnect_link_opens_engagement_idx` ON `reconnect_link_opens` (`engagement_id`,`at`);