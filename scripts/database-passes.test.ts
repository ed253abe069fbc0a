import { describe, expect, it } from "vitest";
import { appDatabaseTests, databasePasses } from "./database-passes.mjs";

describe("which test files run on which database", () => {
  const { sqlite, postgresql } = databasePasses();
  const { included: reachDatabase, excluded } = appDatabaseTests();

  it("runs the files tagged both-databases (whole, or some of their tests) and the *-pg ones on PostgreSQL: claims, leases, races, repositories, the rate budget's store", () => {
    expect(postgresql).toEqual(
      expect.arrayContaining([
        "db/database.test.ts",
        "db/migrate-pg.test.ts",
        "server/migration/engine/claims-pg.test.ts",
        "server/migration/engine/worker.test.ts",
        "server/service-client/budget-store.test.ts",
        "server/api/routers/accounts.test.ts",
      ]),
    );
  });

  it("runs pure rules, parsers, mailers and SQLite-file tests once, and PostgreSQL-only files only on PostgreSQL", () => {
    for (const once of ["core/words.test.ts", "server/intake/parse-token-file.test.ts", "server/mail/mailer.test.ts", "server/api/secrets-scan.test.ts", "server/api/routers/confirmations.test.ts"]) {
      expect(sqlite).toContain(once);
      expect(postgresql).not.toContain(once);
    }
    expect(sqlite).not.toContain("server/migration/engine/claims-pg.test.ts");
  });

  it("tags only files whose run-time imports reach the app database (a tag elsewhere would repeat a test for nothing)", () => {
    expect(postgresql.filter((f) => !reachDatabase.includes(f))).toEqual([]);
    expect(excluded).toEqual(expect.arrayContaining(["core/words.test.ts", "server/sandbox/contract.test.ts", "server/migration/engine/pipeline.test.ts"]));
  });

  it("runs every test file in at least one pass", () => {
    const everyFile = [...reachDatabase, ...excluded].sort();
    expect([...new Set([...sqlite, ...postgresql])].sort()).toEqual(everyFile);
  });
});
