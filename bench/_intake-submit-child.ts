/**
 * One measurement for bench/intake.ts, in its own process so its peak RSS is the submission's
 * alone: a fresh migrated database with an engagement — SQLite (a temporary file) or, when
 * DATABASE_URL names PostgreSQL, a database of its own on that server — then the token file
 * submitted through `submitIntake`: parse, validate, encrypt every secret (before the transaction),
 * store the submission and one item per row in one transaction, the same code the upload route
 * runs. Prints one JSON line.
 * Run by the bench: node --import tsx bench/_intake-submit-child.ts <file>
 */
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { count } from "drizzle-orm";
import { postgresUrl, type Database } from "@/db/database";
import { freshPostgresDatabase } from "./_pg-database";
import { migrationItems } from "@/db/schema";
import { createEngagement } from "@/server/engagements/create-engagement";
import { submitIntake } from "@/server/engagements/flows";
import { createTestDb, seedPeople, TEST_KEY_RING, TEST_NOTIFY } from "@/server/testing/test-db";

/** A fresh migrated database: a temporary SQLite file, or one of its own on the PostgreSQL server DATABASE_URL names. */
async function freshDatabase(): Promise<{ database: Database; close: () => Promise<void> }> {
  const server = postgresUrl();
  if (!server) {
    const t = createTestDb();
    return { database: t.database, close: async () => t.close() };
  }
  const fresh = await freshPostgresDatabase(server, { max: 4 });
  return { database: fresh.database, close: fresh.close };
}

async function main() {
  const [file] = process.argv.slice(2) as [string];
  const t = await freshDatabase();
  try {
    const p = await seedPeople(t.database);
    const { id } = await createEngagement(t.database, TEST_NOTIFY, p.support, { organizationId: p.orgA, platformKey: "qhyg" });
    const bytes = fs.readFileSync(file);
    const t0 = performance.now();
    const result = await submitIntake(t.database, { ring: TEST_KEY_RING, ...TEST_NOTIFY }, p.customerA, {
      engagementId: id,
      form: { clientId: "bench-client", clientSecret: "bench-client-secret-0123456789", contacts: [{ name: "Bench", email: "bench@example.test" }] },
      file: { name: path.basename(file), bytes },
    });
    const seconds = (performance.now() - t0) / 1000;
    const [stored] = await t.database.db.select({ n: count() }).from(migrationItems);
    console.log(JSON.stringify({ seconds, peakRssMb: process.resourceUsage().maxRSS / 1024, ok: result.ok, stored: Number(stored?.n ?? 0), dialect: t.database.dialect }));
  } finally {
    await t.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
