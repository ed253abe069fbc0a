/**
 * Parses token files in a process of its own, one after the other, and prints one JSON line per
 * file: whether it was accepted, its problems' kinds and first message, and the process's peak RSS
 * so far. The intake's tests run it with a small heap (`--max-old-space-size`), so a file that made
 * the parse gather more than its limits allow would end the process instead of passing.
 * Run: node --import tsx server/testing/parse-files-child.ts <platformKey> <file>...
 */
import fs from "node:fs";
import path from "node:path";
import type { PlatformKey } from "@/server/platforms";
import { parseTokenFile } from "../intake/parse-token-file";

async function main() {
  const [platformKey, ...files] = process.argv.slice(2) as [PlatformKey, ...string[]];
  for (const file of files) {
    const result = await parseTokenFile({ bytes: fs.readFileSync(file), fileName: path.basename(file), platformKey, now: new Date() });
    console.log(
      JSON.stringify({
        file: path.basename(file),
        ok: result.ok,
        rows: result.rows.length,
        kinds: result.problems.map((p) => p.kind),
        message: result.problems[0]?.message ?? null,
        peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
      }),
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
