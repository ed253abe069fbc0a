ALTER TABLE `service_targets` ADD `organization_id` text REFERENCES organizations(id);--> statement-breakpoint
ALTER TABLE `service_targets` ADD `built_in` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `service_targets` ADD `requests_per_minute` integer;--> statement-breakpoint
ALTER TABLE `service_targets` ADD `daily_quota` integer;--> statement-breakpoint
ALTER TABLE `service_targets` ADD `archived_at` integer;--> statement-breakpoint
CREATE INDEX `service_targets_org_idx` ON `service_targets` (`organization_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `service_targets_built_in_unique` ON `service_targets` (`built_in`) WHERE "service_targets"."built_in" = 1;--> statement-breakpoint
-- A service target is one customer's own account on the service. A target that only one
-- organisation's engagements have used (pointed at now, or run against) moves to that
-- organisation; one used by several organisations, or by none, stays unassigned until an admin
-- assigns it. The built-in sandbox is marked by Ferry's start (it matches SANDBOX_URL, which this
-- file cannot know), which also takes it out of any organisation.
WITH `uses` AS (
	SELECT `organization_id`, `service_target_id` AS `target_id` FROM `engagements` WHERE `service_target_id` IS NOT NULL
	UNION
	SELECT e.`organization_id`, r.`service_target_id` FROM `migration_runs` r JOIN `engagements` e ON e.`id` = r.`engagement_id` WHERE r.`service_target_id` IS NOT NULL
), `sole` AS (
	SELECT `target_id`, min(`organization_id`) AS `organization_id` FROM `uses` GROUP BY `target_id` HAVING count(DISTINCT `organization_id`) = 1
)
UPDATE `service_targets` SET `organization_id` = (SELECT `sole`.`organization_id` FROM `sole` WHERE `sole`.`target_id` = `service_targets`.`id`)
WHERE `id` IN (SELECT `target_id` FROM `sole`);
