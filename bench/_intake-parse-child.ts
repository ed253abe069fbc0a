/**
 * One measurement for bench/intake-parse.ts, in its own process so its peak RSS is the parse's
 * alone: reads a token file, parses and validates it, prints one JSON line.
 * Run by the bench: node --import tsx bench/_intake-parse-child.ts <file> <platformKey>
 */
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseTokenFile } from "@/server/intake";
import type { PlatformKey } from "@/server/platforms";

async function main() {
  const [file, platformKey] = process.argv.slice(2) as [string, PlatformKey];
  const bytes = fs.readFileSync(file);
  const t0 = performance.now();
  const result = await parseTokenFile({ bytes, fileName: path.basename(file), platformKey, now: new Date() });
  const seconds = (performance.now() - t0) / 1000;
  console.log(
    JSON.stringify({
      seconds,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      rowCount: result.rowCount,
      rows: result.rows.length,
      ok: result.ok,
      errorCount: result.errorCount,
      warningCount: result.warningCount,
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
