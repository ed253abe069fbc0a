ALTER TABLE `migration_items` ADD `in_flight_call` text;--> statement-breakpoint
ALTER TABLE `migration_runs` ADD `sandbox_client_id` text;--> statement-breakpoint
ALTER TABLE `migration_runs` ADD `sandbox_api_key_cipher` text;--> statement-breakpoint
ALTER TABLE `service_calls` ADD `detail` text;