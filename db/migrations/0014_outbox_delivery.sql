ALTER TABLE `mail_outbox` ADD `attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `next_attempt_at` integer;--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `failed_at` integer;--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `claim_token` text;--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `claim_expires_at` integer;--> statement-breakpoint
CREATE INDEX `mail_outbox_due_idx` ON `mail_outbox` (`sent_at`,`failed_at`,`next_attempt_at`);--> statement-breakpoint
-- Rows written before the outbox was delivered by the worker: each had its one attempt; one never
-- marked sent is not sent now, months late, but shown as not delivered.
UPDATE "mail_outbox" SET "attempts" = 1;--> statement-breakpoint
UPDATE "mail_outbox" SET "failed_at" = "created_at", "error" = coalesce("error", 'Not sent before the outbox was delivered by the worker.') WHERE "sent_at" IS NULL;