ALTER TABLE `mail_outbox` ADD `sealed_text` text;--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `invitation_id` text REFERENCES invitations(id);--> statement-breakpoint
ALTER TABLE `service_targets` ADD `api_key_mask` text;--> statement-breakpoint
ALTER TABLE `sign_in_throttle` ADD `expires_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `sign_in_throttle_expires_idx` ON `sign_in_throttle` (`expires_at`);--> statement-breakpoint
ALTER TABLE `users` ADD `session_version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Mail written before this migration kept invitation links in plain text: keep only the address part.
UPDATE `mail_outbox` SET `text` = substr(`text`, 1, instr(`text`, '/invite/') + 7) || '[link removed]' WHERE instr(`text`, '/invite/') > 0;
