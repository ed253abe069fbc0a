CREATE TABLE `digests_sent` (
	`user_id` text NOT NULL,
	`day` text NOT NULL,
	`sent_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `day`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `reminders_sent` (
	`engagement_id` text NOT NULL,
	`move_since` integer NOT NULL,
	`kind` text NOT NULL,
	`seq` integer NOT NULL,
	`sent_at` integer NOT NULL,
	PRIMARY KEY(`engagement_id`, `move_since`, `kind`, `seq`),
	FOREIGN KEY (`engagement_id`) REFERENCES `engagements`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `users` ADD `mail_preference` text DEFAULT 'every' NOT NULL;