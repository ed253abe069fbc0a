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

/** Lints CODE as if it were the file at `filePath`, with the project's configuration (types left out: these rules need none). */
async function lintAs(filePath: string) {
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfig: [{ files: ["**/*.ts"], languageOptions: { parserOptions: { projectService: false, project: null } }, rules: { "ferry/delegate-steps": "off" } }],
  });
  const [result] = await eslint.lintText(CODE, { filePath: path.join(ROOT, filePath) });
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
});
