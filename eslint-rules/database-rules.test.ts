/**
 * The project's lint rules for the database layer (eslint.config.mjs), on code as domain code would
 * write it in server/: better-sqlite3's synchronous calls, its $client, and the database handle
 * inside a transaction body are refused there (each would work on SQLite and fail on PostgreSQL),
 * and the same lines pass in db/, where they belong.
 */
import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "..");

const CODE = `import { q, type Database } from "@/db/database";
import { users } from "@/db/schema";

export async function mistakes(database: Database, map: Map<string, number>): Promise<unknown> {
  const all = database.db.select().from(users).all();
  database.db.$client.pragma("wal_checkpoint(TRUNCATE)");
  await database.transaction(function* () {
    yield* q.get(database.db.select().from(users));
  }, { isolation: "read committed" });
  return [all, map.get("a"), await Promise.all([])];
}
`;

const SLOW_OR_RANDOM_CODE = `import { q, type Database } from "@/db/database";
import { users } from "@/db/schema";
import { encryptSecret, type KeyRing } from "@/server/security/secrets";
import { sealItemCredentials } from "@/server/items/item-credentials";

export async function slow(database: Database, ring: KeyRing): Promise<unknown> {
  const ready = encryptSecret(ring, "made before the body", "aad");
  return database.transaction(function* (tx) {
    const id = crypto.randomUUID();
    const cipher = encryptSecret(ring, "secret", id);
    const sealed = sealItemCredentials(ring, { engagementId: "e", itemId: id }, {});
    const jitter = Math.random();
    yield* q.run(tx.update(users).set({ name: ready }));
    return [cipher, sealed, jitter];
  }, { isolation: "read committed" });
}
`;

/** Lints CODE as if it were the file at `filePath`, with the project's configuration (types left out: these rules need none). */
async function lintAs(filePath: string, code = CODE) {
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfig: [{ files: ["**/*.ts"], languageOptions: { parserOptions: { projectService: false, project: null } }, rules: { "ferry/delegate-steps": "off" } }],
  });
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) });
  return result!.messages.filter((m) => m.ruleId === "no-restricted-syntax").map((m) => ({ line: m.line, message: m.message }));
}

describe("the database layer's lint rules", () => {
  it("refuse in server/ a synchronous .all(), the $client, and the database handle inside a transaction body", async () => {
    const found = await lintAs("server/engagements/lint-probe.ts");
    expect(found.map((f) => f.line)).toEqual([5, 6, 8]);
    expect(found[0]!.message).toMatch(/^better-sqlite3's synchronous \.all\(\)\/\.get\(\)\/\.run\(\) run on SQLite alone/);
    expect(found[1]!.message).toMatch(/^The SQLite client \(\$client\) belongs to db\//);
    expect(found[2]!.message).toMatch(/^A transaction body builds its queries on its own tx/);
  });

  it("leave db/ alone, where the SQLite handle belongs", async () => {
    expect(await lintAs("db/lint-probe.ts")).toEqual([]);
  });

  it("refuse in server/ encryption and randomness inside a transaction body (PostgreSQL may run it again), and allow them before it", async () => {
    const found = await lintAs("server/engagements/lint-probe.ts", SLOW_OR_RANDOM_CODE);
    expect(found.map((f) => f.line)).toEqual([9, 10, 11, 12]);
    for (const f of found) expect(f.message).toMatch(/^Nothing slow or random in a transaction body/);
  });
});
