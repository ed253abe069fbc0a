ALTER TABLE `webhook_inbox` ADD `company_id` text;--> statement-breakpoint
CREATE INDEX `webhook_inbox_company_idx` ON `webhook_inbox` (`company_id`,`received_at`);