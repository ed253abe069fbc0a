ALTER TABLE `migration_items` ADD `platform_tenant` text;--> statement-breakpoint
ALTER TABLE `migration_items` ADD `wrong_tenant` text;