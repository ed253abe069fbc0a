/**
 * What the engine's tests share: a real sandbox on a random port, a fresh app database (a
 * temporary SQLite file, or a database of its own on the PostgreSQL pass's server) with a person
 * of each role, started before a file's tests and stopped after them, and
 * `ready(companies)`, an engagement ready for step 5 on them (ready-engagement.ts).
 */
import { afterAll, beforeAll } from "vitest";
import { startTestSandbox, type TestSandbox } from "@/server/testing/test-sandbox";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase } from "@/server/testing/test-db";
import { readyEngagement, type ReadyCompany, type ReadyEngagement } from "./ready-engagement";

export type EngineTestBed = {
  sb: TestSandbox;
  t: TestDatabase;
  people: People;
  /** An engagement ready for step 5 with these companies (see readyEngagement for `extra`). */
  ready(companies: ReadyCompany[], extra?: Partial<Parameters<typeof readyEngagement>[1]>): Promise<ReadyEngagement>;
};

/** Registers the set-up and tear-down hooks of a test file; the fields are there once its tests run. */
export function engineTestBed(): EngineTestBed {
  const bed = {
    ready: (companies, extra = {}) =>
      readyEngagement(bed.t.database, { ring: TEST_KEY_RING, support: bed.people.support, sandbox: { url: bed.sb.url, control: bed.sb.control }, companies, ...extra }),
  } as EngineTestBed;
  beforeAll(async () => {
    bed.sb = await startTestSandbox();
    bed.t = await createTestDatabase();
    bed.people = await seedPeople(bed.t.db);
  });
  afterAll(async () => {
    await bed.t.close();
    await bed.sb.close();
  });
  return bed;
}
