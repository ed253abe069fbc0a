// `npm run bench`: runs every benchmark entry in bench/ (files `bench/*.ts` whose names do not start
// with `_`; helpers and load-generator workers are named `_*.ts`) and prints their figures.
// `npm run bench -- NAME [ARGS…]` runs the entries whose names contain NAME, passing them ARGS.
import fs from "node:fs";
import path from "node:path";
import { BIN, ROOT, run } from "./lib.mjs";

const dir = path.join(ROOT, "bench");
const only = process.argv[2];
const entries = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith(".ts") && !f.startsWith("_") && (!only || f.includes(only)))
  .sort();
let failed = 0;
for (const file of entries) {
  console.log(`\n=== bench/${file} ===`);
  if (run(BIN("tsx"), [path.join("bench", file), ...process.argv.slice(3)], { env: { NODE_ENV: "production" } }) !== 0) failed++;
}
process.exit(failed ? 1 : 0);
