// Which tests run on which database: the one rule, kept here, that both Vitest configs read.
// - Every test runs in the SQLite pass, but those of files named `*-pg.test.ts` (about PostgreSQL
//   alone: its migrations, SKIP LOCKED claims, what its files keep after a purge).
// - The PostgreSQL pass of `npm test` (vitest.pg.config.ts) runs again the tests about what can
//   differ between the two databases, tagged `both-databases` (Vitest's test tags): a whole file with
//   `@module-tag both-databases` in its opening comment (repositories, claims, leases, the rate
//   budget's store), or single tests and describes with `{ tags: ["both-databases"] }` (the races
//   among a router's tests) — and the `*-pg.test.ts` files (tagged `postgresql`). Pure rules, CSV
//   builders, mailers, routers' checks and SQLite-file tests run once.
// The pass loads only the files that mention a tag, and its tags filter skips their other tests.
// A tagged file must reach the app database (db/database.ts, db/client.ts or db/schema.ts) through
// its run-time imports, or the tag would be a mistake: appDatabaseTests() walks the import graph
// (type-only imports left out) and database-passes.test.ts holds the two together.
// Plain ESM: the Vitest configs import it.
//   node scripts/database-passes.mjs    lists the PostgreSQL pass's files, then the rest
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The modules that are the app database: reaching any of them means a test runs on it. */
const DATABASE_MODULES = ["db/database.ts", "db/client.ts", "db/schema.ts"].map((f) => path.join(ROOT, f));

/** Where the unit and integration tests live (vitest.config.mts includes the same folders). */
const TEST_ROOTS = ["core", "server", "db", "app", "scripts", "deploy", "eslint-rules"];

const EXTENSIONS = ["", ".ts", ".tsx", ".mts", ".mjs", ".cjs", ".js", "/index.ts", "/index.tsx"];

// `import x from "…"`, `import { a } from "…"`, `export … from "…"`, `import "…"`, `import("…")`,
// `require("…")`; `import type …` and `export type …` are matched separately and skipped.
const SPECIFIERS = /(?:^|[;\s])(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?["']([^"']+)["']|\b(?:import|require)\(\s*["']([^"']+)["']\s*\)/gm;

function resolve(from, specifier) {
  let base;
  if (specifier.startsWith("@/")) base = path.join(ROOT, specifier.slice(2));
  else if (specifier.startsWith(".")) base = path.resolve(path.dirname(from), specifier);
  else return null; // a package: not Ferry's code
  for (const ext of EXTENSIONS) {
    const candidate = base + ext;
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return null;
}

function importsOf(file) {
  const source = fs.readFileSync(file, "utf8");
  const found = [];
  for (const m of source.matchAll(SPECIFIERS)) {
    if (m[2]) continue; // import type / export type
    const target = resolve(file, m[3] ?? m[4]);
    if (target) found.push(target);
  }
  return found;
}

function testFiles() {
  const files = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".test.ts")) files.push(full);
    }
  };
  for (const root of TEST_ROOTS) if (fs.existsSync(path.join(ROOT, root))) walk(path.join(ROOT, root));
  return files.sort();
}

/** Test files (relative to the project) whose run-time imports reach the app database, and those whose do not. */
export function appDatabaseTests() {
  // The import graph from the tests down, then every file from which a database module can be
  // reached, walking the edges backwards from those modules (cycles need no special care).
  const importers = new Map();
  const all = testFiles();
  const pending = [...all];
  const seen = new Set(pending);
  while (pending.length) {
    const file = pending.pop();
    for (const next of importsOf(file)) {
      if (!importers.has(next)) importers.set(next, new Set());
      importers.get(next).add(file);
      if (!seen.has(next)) {
        seen.add(next);
        pending.push(next);
      }
    }
  }
  const reaches = new Set(DATABASE_MODULES);
  const back = [...DATABASE_MODULES];
  while (back.length) {
    for (const importer of importers.get(back.pop()) ?? []) {
      if (!reaches.has(importer)) {
        reaches.add(importer);
        back.push(importer);
      }
    }
  }
  const rel = (f) => path.relative(ROOT, f).split(path.sep).join("/");
  return { included: all.filter((f) => reaches.has(f)).map(rel), excluded: all.filter((f) => !reaches.has(f)).map(rel) };
}

/** Test files about PostgreSQL alone: the PostgreSQL pass only. */
export const POSTGRES_ONLY = /-pg\.test\.ts$/;
/** The tag of the tests the PostgreSQL pass runs again, and of the PostgreSQL-only files. */
export const BOTH_DATABASES = "both-databases";
export const POSTGRESQL = "postgresql";
/** The PostgreSQL pass's filter over the tags (Vitest's tagsFilter). */
export const POSTGRES_PASS_TAGS = `${BOTH_DATABASES} || ${POSTGRESQL}`;

/** Whether a test file tags the whole file or any of its tests both-databases. */
function tagged(file) {
  const source = fs.readFileSync(file, "utf8");
  return new RegExp(`@module-tag\\s+${BOTH_DATABASES}\\b|tags:\\s*\\[[^\\]]*["']${BOTH_DATABASES}["']`).test(source);
}

/** The test files (relative to the project) of each pass. */
export function databasePasses() {
  const rel = (f) => path.relative(ROOT, f).split(path.sep).join("/");
  const all = testFiles();
  return {
    sqlite: all.filter((f) => !POSTGRES_ONLY.test(f)).map(rel),
    postgresql: all.filter((f) => POSTGRES_ONLY.test(f) || tagged(f)).map(rel),
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { postgresql } = databasePasses();
  const rest = testFiles().map((f) => path.relative(ROOT, f)).filter((f) => !postgresql.includes(f));
  console.log(`${postgresql.length} test files run on PostgreSQL too (or only):\n  ${postgresql.join("\n  ")}`);
  console.log(`\n${rest.length} run on SQLite only:\n  ${rest.join("\n  ")}`);
}
