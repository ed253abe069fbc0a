ALTER TABLE `migration_items` ADD `rehearsal_run_id` text;--> statement-breakpoint
CREATE INDEX `migration_items_rehearsal_idx` ON `migration_items` (`rehearsal_run_id`);