/**
 * Supplementary files changed from two places at once, on the database the run is for (on
 * PostgreSQL the operations really are concurrent): support accepting the same file twice, and
 * the customer sending a newer file while support accepts the current one. Each operation locks
 * the engagement's row (loadForChange) before it decides; to make the race certain, the test holds
 * that row itself until both operations wait on it, then lets them go together.
 *
 * Runs on both databases: fresh tokens accepted and sent back at once.
 * @module-tag both-databases
 */
import { and, eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditEvents, migrationItems, supplementaryFiles, supplementaryRows } from "@/db/schema";
import { afterBulkRun, freshTokenCsv, type AfterBulkRun, type FreshRow } from "@/server/testing/supplementary-fixture";
import { atOnce } from "@/server/testing/at-once";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase, TEST_NOTIFY } from "@/server/testing/test-db";
import { acceptSupplementaryFile } from "./accept-supplementary-file";
import { submitSupplementaryFile } from "./submit-supplementary-file";

let t: TestDatabase;
let p: People;
let f: AfterBulkRun;

beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
  f = await afterBulkRun(t.database, p);
});
afterEach(() => t.close());

const COPPERLEAF: FreshRow = { name: "Copperleaf Cafe", externalRef: "CC-02", seed: 1 };
const WILDROSE: FreshRow = { name: "Wildrose Wedding Co", seed: 2 };
const file = (rows: FreshRow[], name: string) => ({ name, bytes: freshTokenCsv(rows) });

async function sent(rows: FreshRow[], name: string): Promise<string> {
  const result = await submitSupplementaryFile(t.database, { ring: TEST_KEY_RING, ...TEST_NOTIFY }, p.customerA, { engagementId: f.engagementId, file: file(rows, name) });
  if (!result.ok) throw new Error(`the file was refused: ${JSON.stringify(result.check.problems)}`);
  return result.fileId;
}

const accept = (fileId: string) => acceptSupplementaryFile(t.database, { ring: TEST_KEY_RING, ...TEST_NOTIFY }, p.support, { engagementId: f.engagementId, fileId });

const audits = async (action: string) => t.db.select().from(auditEvents).where(and(eq(auditEvents.engagementId, f.engagementId), eq(auditEvents.action, action)));

/** Runs `operations` together, contending for the engagement's row (see server/testing/at-once.ts). */
const together = <T>(operations: (() => Promise<T>)[]) => atOnce(t, { sql: "select id from engagements where id = $1 for update", params: [f.engagementId] }, operations);

describe("a supplementary file changed from two places at once", () => {
  it("accepted twice at once: each company's tokens are sealed and it is retried once; the second acceptance is refused", async () => {
    const fileId = await sent([COPPERLEAF, WILDROSE], "fresh.csv");
    const results = await together([() => accept(fileId), () => accept(fileId)]);

    expect(results.filter((r) => r.status === "fulfilled").map((r) => r.value)).toEqual([expect.objectContaining({ companies: 2, skipped: 0 })]);
    const refused = results.filter((r) => r.status === "rejected").map((r) => r.reason as { code: string; message: string });
    expect(refused).toEqual([expect.objectContaining({ code: "PRECONDITION_FAILED", message: expect.stringMatching(/already accepted/) })]);
    expect(await audits("supplementary.accepted")).toHaveLength(1);
    // One decryption per company, each sealed once for its item.
    expect((await audits("migration_item.credentials_decrypted")).map((e) => e.targetId).sort()).toEqual(
      (await t.db.select({ id: migrationItems.id }).from(migrationItems).where(eq(migrationItems.supplementaryFileId, fileId))).map((i) => i.id).sort(),
    );
    const items = await t.db.select().from(migrationItems).where(eq(migrationItems.supplementaryFileId, fileId));
    expect(items.map((i) => [i.name, i.state]).sort()).toEqual([
      ["Copperleaf Cafe", "connection_created"],
      ["Wildrose Wedding Co", "connection_created"],
    ]);
  });

  it("a newer file sent while support accepts the current one: one of the two wins, never both", async () => {
    const firstId = await sent([COPPERLEAF, WILDROSE], "first.csv");
    const results = await together<unknown>([
      () => accept(firstId),
      () => submitSupplementaryFile(t.database, { ring: TEST_KEY_RING, ...TEST_NOTIFY }, p.customerA, { engagementId: f.engagementId, file: file([{ ...COPPERLEAF, seed: 7 }, { ...WILDROSE, seed: 8 }], "second.csv") }),
    ]);
    const [accepted, submitted] = [results[0]!, results[1]!];
    const acceptWon = accepted.status === "fulfilled";
    const submitWon = submitted.status === "fulfilled" && (submitted.value as { ok: boolean }).ok;
    expect([acceptWon, submitWon].filter(Boolean)).toHaveLength(1);

    const files = Object.fromEntries((await t.db.select().from(supplementaryFiles)).map((x) => [x.fileName, x.status]));
    const retried = await t.db.select({ name: migrationItems.name, file: migrationItems.supplementaryFileId }).from(migrationItems).where(eq(migrationItems.state, "connection_created"));
    if (acceptWon) {
      // The acceptance came first: the newer file is checked on the companies it retried, and refused by line.
      expect(files).toEqual({ "first.csv": "accepted" });
      expect(submitted).toMatchObject({ status: "fulfilled", value: { ok: false, check: { countsByKind: { company_not_waiting: 2 } } } });
      expect(retried.map((r) => r.file)).toEqual([firstId, firstId]);
    } else {
      // The newer file came first: it replaced the one support looked at, whose tokens are gone; nothing is retried.
      expect(files).toEqual({ "first.csv": "replaced", "second.csv": "submitted" });
      expect(accepted).toMatchObject({ status: "rejected", reason: { code: "PRECONDITION_FAILED", message: expect.stringMatching(/no longer the current one/) } });
      expect(retried).toEqual([]);
      const firstRows = await t.db.select().from(supplementaryRows).where(eq(supplementaryRows.fileId, firstId));
      expect(firstRows.every((r) => r.credentialsCipher === null)).toBe(true);
      expect(await audits("migration_item.credentials_decrypted")).toEqual([]);
    }
  });
});
