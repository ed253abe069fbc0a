CREATE TABLE `periodic_leases` (
	`name` text PRIMARY KEY NOT NULL,
	`owner` text NOT NULL,
	`expires_at` integer NOT NULL,
	`ticked_at` integer NOT NULL
);
