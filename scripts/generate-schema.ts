/**
 * `npm run db:schema`: writes db/schema.sqlite.ts and db/schema.pg.ts from the one description in
 * db/schema-description.ts. `--check` writes nothing and fails when either file is out of date.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { schemaDescription } from "../db/schema-description";
import { printSchema, type Dialect } from "../db/schema-kit";

const FILES: Record<Dialect, string> = { sqlite: "db/schema.sqlite.ts", pg: "db/schema.pg.ts" };
const root = path.resolve(import.meta.dirname, "..");
const check = process.argv.includes("--check");
let stale = 0;
for (const dialect of Object.keys(FILES) as Dialect[]) {
  const file = path.join(root, FILES[dialect]);
  const text = printSchema(dialect, schemaDescription);
  const current = readFileSync(file, "utf8");
  if (current === text) {
    console.log(`${FILES[dialect]} is up to date`);
  } else if (check) {
    console.error(`${FILES[dialect]} is out of date: run npm run db:schema`);
    stale++;
  } else {
    writeFileSync(file, text);
    console.log(`wrote ${FILES[dialect]}`);
  }
}
process.exitCode = stale ? 1 : 0;
