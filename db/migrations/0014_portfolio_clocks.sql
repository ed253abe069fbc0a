ALTER TABLE `engagements` ADD `move_credit_ms` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `engagements` ADD `paused_move` text;--> statement-breakpoint
ALTER TABLE `engagements` ADD `status_reason` text;--> statement-breakpoint
ALTER TABLE `engagements` ADD `status_note` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `clock_targets` text;