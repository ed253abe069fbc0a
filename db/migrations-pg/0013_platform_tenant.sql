ALTER TABLE "migration_items" ADD COLUMN "platform_tenant" jsonb;--> statement-breakpoint
ALTER TABLE "migration_items" ADD COLUMN "wrong_tenant" jsonb;