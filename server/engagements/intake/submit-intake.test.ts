/**
 * A token file's companies as the submission's transaction stores them (companiesOf): every row
 * once, in order, each credential sealed for its own item, with or without a sealing thread; and
 * when PostgreSQL runs the transaction again after a first attempt stopped part-way, the second
 * reading starts from the first row with fresh ids, and nothing of the first attempt leaks into it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { getManagedPlatform } from "@/server/platforms";
import { openItemCredentials } from "@/server/items/item-credentials";
import type { SealedItem } from "@/server/items/insert-items";
import { startSealingThread, type SealingThread } from "@/server/security/sealing-thread";
import { credentialsFor } from "@/server/demo/stand-in-credentials";
import { TEST_KEY_RING } from "@/server/testing/test-db";
import { csvBytes, headerFor, rowFor } from "@/server/testing/token-files";
import { companiesOf, type FileCompanies } from "./submit-intake";

const qbo = getManagedPlatform("qhyg")!;
const now = new Date("2026-11-29T12:00:00Z");
const seal = { ring: TEST_KEY_RING, platform: qbo, engagementId: "eng-1", submissionId: "sub-1", at: now };
let thread: SealingThread | null = null;
afterEach(() => thread?.close());

/** Runs the producer as loadMany would, stopping after `yields` yields when given. */
function run(companies: FileCompanies, yields = Infinity): SealedItem[] {
  const stored: SealedItem[] = [];
  const steps = companies.produce((batch) => stored.push(...batch));
  let seen = 0;
  for (let step = steps.next(); !step.done && seen < yields; step = steps.next()) seen += 1;
  return stored;
}

describe("a token file's companies for the submission's transaction", () => {
  it.each([false, true])("stores every row once, in order, sealed for its item (sealing thread: %s), and reads again from the start", async (withThread) => {
    thread = withThread ? startSealingThread(TEST_KEY_RING) : null;
    const rows = 3_000;
    const bytes = csvBytes([headerFor(qbo), ...Array.from({ length: rows }, (_, i) => rowFor(qbo, i + 1))]);
    const companies = await companiesOf({ bytes, fileName: "tokens.csv", platformKey: "qhyg", now }, seal, thread);
    if ("refused" in companies) throw new Error("refused");
    // A first attempt that stops part-way (the transaction failed and is run again).
    const first = run(companies, 2);
    expect(first.length).toBeGreaterThan(0);
    expect(first.length).toBeLessThan(rows);
    const second = run(companies);
    expect(second.map((item) => item.position)).toEqual(Array.from({ length: rows }, (_, i) => i));
    expect(companies.read()).toMatchObject({ ok: true, rowCount: rows });
    const firstIds = new Set(first.map((item) => item.id));
    expect(second.some((item) => firstIds.has(item.id))).toBe(false);
    for (const item of second) {
      expect(openItemCredentials(TEST_KEY_RING, { engagementId: "eng-1", itemId: item.id! }, item.credentialsCipher!)).toEqual(credentialsFor(qbo, item.position + 1));
    }
  });
});
