/**
 * Test support for server/mail/outbox-crash.test.ts, run as a process of its own (tsx): on the test
 * database (its env), it opens an engagement — a change that queues mail in its own transaction —
 * then, as a sender would, claims one of those messages, prints what it did, and hangs, as a
 * worker stuck mid-send would, until it is killed. It never marks anything sent.
 *
 * Env: the test database's, CRASH_ACTOR (the support actor, JSON), CRASH_ORGANIZATION, CRASH_LEASE_MS.
 */
import { readyDatabase } from "@/db/ready";
import type { Actor } from "@/core/accounts/actor";
import { createEngagement } from "@/server/engagements/create-engagement";
import { claimNextMail } from "@/server/mail/sender";

async function main(): Promise<void> {
  const database = await readyDatabase();
  const support = JSON.parse(process.env.CRASH_ACTOR ?? "null") as Actor;
  const notify = { appUrl: "http://ferry.test", mail: { from: "Ferry <ferry@test>" } };
  const { id } = await createEngagement(database, { notify }, support, { organizationId: process.env.CRASH_ORGANIZATION ?? "", platformKey: "qhyg" });
  const claimed = await database.transaction((tx) => claimNextMail(tx, { token: "crashed-sender", leaseMs: Number(process.env.CRASH_LEASE_MS ?? 1_500), now: new Date() }), {
    isolation: "read committed",
  });
  console.log(`committed ${id}; claimed ${claimed?.id ?? "nothing"}`);
  // Stuck mid-send until killed.
  setInterval(() => {}, 60_000);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : String(error));
  process.exit(1);
});
