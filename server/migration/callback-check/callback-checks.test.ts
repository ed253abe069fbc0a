/** Step 3's round trip where its parts race: a cancel while the test company is being made leaves nothing on the service. */
import { eq } from "drizzle-orm";
import { expect, it } from "vitest";
import { callbackChecks } from "@/db/schema";
import { engineTestBed } from "@/server/testing/test-bed";
import { TEST_KEY_RING, TEST_NOTIFY } from "@/server/testing/test-db";
import { basicAuth } from "@/server/testing/test-sandbox";
import { createCallbackChecks, type CallbackChecks } from "./callback-checks";

const bed = engineTestBed();

it("cancelled while its test company is being made: the company made meanwhile is deleted from the service", async () => {
  const eng = await bed.ready([{ name: "Race Co", records: 3 }], { stopAfterStep1: true });
  const made: { checks?: CallbackChecks } = {};
  let cancelled = false;
  // The customer cancels just as Ferry asks for the test connection (the company exists, its row does not say so yet).
  const racing: typeof fetch = async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (!cancelled && init?.method === "POST" && /\/connections$/.test(url)) {
      cancelled = true;
      await made.checks!.cancel(eng.customer, eng.engagementId);
    }
    return fetch(input, init);
  };
  const checks = (made.checks = createCallbackChecks({ database: bed.t.database, ring: TEST_KEY_RING, ...TEST_NOTIFY, refreshMs: 0, client: { fetch: racing } }));
  const view = await checks.start(eng.customer, eng.engagementId);
  expect(cancelled).toBe(true);
  expect(view.status).toBe("cancelled");
  const [row] = await bed.t.db.select().from(callbackChecks).where(eq(callbackChecks.engagementId, eng.engagementId));
  expect(row!.companyId).toBeNull();
  expect(row!.companyDeletedAt).toBeInstanceOf(Date);
  // No company of the check is left on the sandbox client.
  const res = await fetch(`${bed.sb.url}/companies?page=1&pageSize=100`, { headers: { authorization: basicAuth(eng.apiKey) } });
  const body = (await res.json()) as { results: { name: string }[] };
  expect(body.results.filter((c) => c.name.startsWith("Ferry callback check"))).toEqual([]);
});
