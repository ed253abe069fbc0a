ALTER TABLE `engagements` ADD `move_credit_ms` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `engagements` ADD `paused_move` text;--> statement-breakpoint
ALTER TABLE `engagements` ADD `due_at` integer;--> statement-breakpoint
ALTER TABLE `engagements` ADD `at_risk_at` integer;--> statement-breakpoint
ALTER TABLE `engagements` ADD `status_reason` text;--> statement-breakpoint
ALTER TABLE `engagements` ADD `status_note` text;--> statement-breakpoint
CREATE INDEX `engagements_due_idx` ON `engagements` (`status`,`due_at`);--> statement-breakpoint
ALTER TABLE `organizations` ADD `clock_targets` text;