DROP INDEX `migration_items_rehearsal_idx`;--> statement-breakpoint
DROP INDEX `migration_items_claim_idx`;--> statement-breakpoint
DROP INDEX `migration_items_lease_idx`;--> statement-breakpoint
DROP INDEX `migration_items_real_state_idx`;--> statement-breakpoint
ALTER TABLE `migration_items` ADD `reached` integer GENERATED ALWAYS AS ((case when company_id is not null then 1 else 0 end) + (case when state in ('authorized', 'sync_requested', 'verified') or dropped_at is not null or reconnected_at is not null or checks -> 'connection' ->> 'status' = 'Linked' then 131072 else 0 end) + (case when state = 'verified' or dropped_at is not null or reconnected_at is not null or (checks -> 'sync' ->> 'finishedAt' is not null and not (state in ('failed', 'reauth_required', 'reconnect_pending') and last_error ->> 'operation' = 'getDataStatus')) then 17179869184 else 0 end)) VIRTUAL;--> statement-breakpoint
CREATE INDEX `migration_items_rehearsal_idx` ON `migration_items` (`rehearsal_run_id`) WHERE "migration_items"."rehearsal_run_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `migration_items_claim_idx` ON `migration_items` (`run_id`,`state`,`next_attempt_at`) WHERE "migration_items"."run_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `migration_items_lease_idx` ON `migration_items` (`lease_expires_at`) WHERE "migration_items"."lease_expires_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `migration_items_real_state_idx` ON `migration_items` (`engagement_id`,`rehearsal_run_id`,`state`,`position`,`reached`);