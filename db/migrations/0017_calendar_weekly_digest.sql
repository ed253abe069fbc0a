CREATE TABLE `weekly_digests_sent` (
	`user_id` text NOT NULL,
	`week` text NOT NULL,
	`sent_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `week`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `users` ADD `calendar_feed_hash` text;--> statement-breakpoint
ALTER TABLE `users` ADD `calendar_feed_token` text;--> statement-breakpoint
CREATE UNIQUE INDEX `users_calendar_feed_unique` ON `users` (`calendar_feed_hash`);--> statement-breakpoint
ALTER TABLE `window_proposals` ADD `estimate_requests` integer;--> statement-breakpoint
ALTER TABLE `window_proposals` ADD `estimate_companies` integer;--> statement-breakpoint
CREATE INDEX `window_proposals_time_idx` ON `window_proposals` (`starts_at`,`ends_at`);