CREATE TABLE "digests_sent" (
	"user_id" text NOT NULL,
	"day" text NOT NULL,
	"sent_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "digests_sent_user_id_day_pk" PRIMARY KEY("user_id","day")
);
--> statement-breakpoint
CREATE TABLE "reminders_sent" (
	"engagement_id" text NOT NULL,
	"move_since" timestamp (3) with time zone NOT NULL,
	"kind" text NOT NULL,
	"seq" integer NOT NULL,
	"sent_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "reminders_sent_engagement_id_move_since_kind_seq_pk" PRIMARY KEY("engagement_id","move_since","kind","seq")
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "mail_preference" text DEFAULT 'every' NOT NULL;--> statement-breakpoint
ALTER TABLE "digests_sent" ADD CONSTRAINT "digests_sent_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reminders_sent" ADD CONSTRAINT "reminders_sent_engagement_id_engagements_id_fk" FOREIGN KEY ("engagement_id") REFERENCES "public"."engagements"("id") ON DELETE cascade ON UPDATE no action;