CREATE TABLE "periodic_leases" (
	"name" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"ticked_at" timestamp (3) with time zone NOT NULL
);
