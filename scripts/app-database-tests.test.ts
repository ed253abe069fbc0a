import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { appDatabaseTests } from "./app-database-tests.mjs";

describe("the PostgreSQL pass's test files", () => {
  const { included, excluded } = appDatabaseTests();

  it("holds every test file whose imports reach the app database, however indirectly", () => {
    // Directly (the test database), through a tRPC caller, and through the engine's test bed.
    expect(included).toEqual(expect.arrayContaining(["db/database.test.ts", "server/api/routers/accounts.test.ts", "server/migration/engine/worker.test.ts"]));
  });

  it("leaves out the files whose code never opens it (pure rules, parsing, the sandbox's own store)", () => {
    expect(excluded).toEqual(expect.arrayContaining(["core/words.test.ts", "server/intake/parse-token-file.test.ts", "server/sandbox/contract.test.ts", "server/migration/engine/pipeline.test.ts", "scripts/app-database-tests.test.ts"]));
  });

  it("puts each test file on exactly one side", () => {
    const root = path.resolve(__dirname, "..");
    const onDisk = ["core", "server", "db", "app", "scripts", "deploy"].flatMap((dir) =>
      (fs.readdirSync(path.join(root, dir), { recursive: true }) as string[]).filter((f) => f.endsWith(".test.ts")).map((f) => `${dir}/${f.split(path.sep).join("/")}`),
    );
    expect([...included, ...excluded].sort()).toEqual(onDisk.sort());
  });
});
