/**
 * Token-file intake, whole: parse, validate, encrypt and store QuickBooks Online token files of
 * 10,000 and 100,000 companies (CSV) into a real temporary database, through the same
 * `submitIntake` the upload route calls, each in a fresh process that reports its time and peak
 * RSS. Baseline, measured in the same run on the same files: parse + validate only (the intake's
 * pure part), so the figure beside it is what encryption and storage add.
 * Targets: 10k rows < 1.5 s, 100k rows < 15 s, peak RSS < 300 MB.
 * Run: npm run bench -- intake (last line: {"bench":"intake","rows10k_s":…,"rows100k_s":…,"peak_rss_mb":…})
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { platform, writeCsv } from "./_intake-files";

type Run = { seconds: number; peakRssMb: number };

function child(script: string, args: string[]): Run & Record<string, unknown> {
  const run = spawnSync(process.execPath, ["--import", "tsx", path.join(__dirname, script), ...args], {
    encoding: "utf8",
    env: { ...process.env, NODE_ENV: "production" },
  });
  if (run.status !== 0) throw new Error(`${script} ${args.join(" ")} failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split("\n").at(-1)!) as Run & Record<string, unknown>;
}

const submit = (file: string, rows: number) => {
  const r = child("_intake-submit-child.ts", [file]);
  if (!r.ok || r.stored !== rows) throw new Error(`${file}: expected ${rows} stored companies, got ${JSON.stringify(r)}`);
  return r;
};
const parseOnly = (file: string, rows: number) => {
  const r = child("_intake-parse-child.ts", [file, platform.key]);
  if (!r.ok || r.rows !== rows) throw new Error(`${file}: expected ${rows} accepted rows, got ${JSON.stringify(r)}`);
  return r;
};

function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-intake-bench-"));
  const load = os.loadavg()[0] ?? 0;
  const figures: Record<string, number> = {};
  let peak = 0;
  try {
    console.log("rows      file MB   parse+validate s (baseline)   whole submission s   added by encrypt+store s   peak RSS MB");
    for (const rows of [10_000, 100_000]) {
      const file = path.join(dir, `qbo-${rows}.csv`);
      writeCsv(file, rows);
      // Three runs each, interleaved; the best time (least disturbed by other load) and the highest RSS.
      const base: Run[] = [];
      const whole: Run[] = [];
      for (let i = 0; i < 3; i++) {
        base.push(parseOnly(file, rows));
        whole.push(submit(file, rows));
      }
      const baseS = Math.min(...base.map((r) => r.seconds));
      const wholeS = Math.min(...whole.map((r) => r.seconds));
      const rss = Math.max(...whole.map((r) => r.peakRssMb));
      peak = Math.max(peak, rss);
      figures[`rows${rows / 1000}k_s`] = Number(wholeS.toFixed(3));
      console.log(
        `${String(rows).padStart(7)} ${(fs.statSync(file).size / 1_048_576).toFixed(1).padStart(9)} ${baseS.toFixed(3).padStart(28)} ${wholeS.toFixed(3).padStart(20)} ${(wholeS - baseS).toFixed(3).padStart(26)} ${rss.toFixed(0).padStart(13)}`,
      );
    }
    console.log(`\nTargets: 10k < 1.5 s, 100k < 15 s, peak RSS < 300 MB. Load average ${load.toFixed(2)} at the start, ${os.loadavg()[0]?.toFixed(2)} at the end, on ${os.cpus().length} cores.`);
    console.log(JSON.stringify({ bench: "intake", rows10k_s: figures.rows10k_s, rows100k_s: figures.rows100k_s, peak_rss_mb: Math.round(peak) }));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main();
