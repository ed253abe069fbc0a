CREATE TABLE "reconnect_link_opens" (
	"id" text PRIMARY KEY NOT NULL,
	"engagement_id" text NOT NULL,
	"item_id" text NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"outcome" text NOT NULL,
	"detail" text,
	"status" integer,
	"correlation_id" text
);
--> statement-breakpoint
ALTER TABLE "reconnect_link_opens" ADD CONSTRAINT "reconnect_link_opens_engagement_id_engagements_id_fk" FOREIGN KEY ("engagement_id") REFERENCES "public"."engagements"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reconnect_link_opens" ADD CONSTRAINT "reconnect_link_opens_item_id_migration_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "public"."migration_items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "reconnect_link_opens_item_idx" ON "reconnect_link_opens" USING btree ("item_id","at");--> statement-breakpoint
CREATE INDEX "reconnect_link_opens_engagement_idx" ON "reconnect_link_opens" USING btree ("engagement_id","at");