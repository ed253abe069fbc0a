/**
 * One measurement for bench/intake.ts, in its own process so its peak RSS is the submission's
 * alone: a fresh temporary database with an engagement, then the token file submitted through
 * `submitIntake` — parse, validate, encrypt every secret, store the submission and one item per
 * row in one transaction — the same code the upload route runs. Prints one JSON line.
 * Run by the bench: node --import tsx bench/_intake-submit-child.ts <file>
 */
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { count } from "drizzle-orm";
import { migrationItems } from "@/db/schema";
import { createEngagement } from "@/server/engagements/create-engagement";
import { submitIntake } from "@/server/engagements/flows";
import { createTestDb, seedPeople, TEST_KEY_RING } from "@/server/testing/test-db";

async function main() {
  const [file] = process.argv.slice(2) as [string];
  const t = createTestDb();
  try {
    const p = await seedPeople(t.db);
    const { id } = await createEngagement(t.database, p.support, { organizationId: p.orgA, platformKey: "qhyg" });
    const bytes = fs.readFileSync(file);
    const t0 = performance.now();
    const result = await submitIntake(t.database, { ring: TEST_KEY_RING }, p.customerA, {
      engagementId: id,
      form: { clientId: "bench-client", clientSecret: "bench-client-secret-0123456789", contacts: [{ name: "Bench", email: "bench@example.test" }] },
      file: { name: path.basename(file), bytes },
    });
    const seconds = (performance.now() - t0) / 1000;
    const stored = t.db.select({ n: count() }).from(migrationItems).get()!.n;
    console.log(JSON.stringify({ seconds, peakRssMb: process.resourceUsage().maxRSS / 1024, ok: result.ok, stored }));
  } finally {
    t.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
