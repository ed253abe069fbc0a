/**
 * Token-file intake, whole: parse, validate, encrypt and store QuickBooks Online token files of
 * 10,000 and 100,000 companies (CSV) into a real temporary database — SQLite, then PostgreSQL (a
 * throwaway server of the bench's own, scripts/postgres.mjs) — through the same `submitIntake` the
 * upload route calls, each in a fresh process that reports its time and peak RSS. Baseline,
 * measured in the same run on the same files: parse + validate only (the intake's pure part), so
 * the figure beside it is what encryption and storage add.
 * Targets (issue 28, item 8): 100k rows ≤ 3 s and ≤ 300 MB peak RSS on both databases; 10k rows < 1.5 s.
 * Run: npm run bench -- intake (last line:
 * {"bench":"intake","rows10k_s":…,"rows100k_s":…,"peak_rss_mb":…,"pg_rows10k_s":…,"pg_rows100k_s":…,"pg_peak_rss_mb":…})
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { platform, writeCsv } from "./_intake-files";
import { startThrowawayPostgres } from "./_workers";

type Run = { seconds: number; peakRssMb: number };

function child(script: string, args: string[], env: Record<string, string> = {}): Run & Record<string, unknown> {
  const run = spawnSync(process.execPath, ["--import", "tsx", path.join(__dirname, script), ...args], {
    encoding: "utf8",
    env: { ...process.env, NODE_ENV: "production", DATABASE_URL: "", ...env },
  });
  if (run.status !== 0) throw new Error(`${script} ${args.join(" ")} failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split("\n").at(-1)!) as Run & Record<string, unknown>;
}

/** `pg`: the throwaway server's URL (each run makes a migrated database of its own on it), or none for SQLite. */
const submit = (file: string, rows: number, pg?: string) => {
  const r = child("_intake-submit-child.ts", [file], pg ? { DATABASE_URL: pg } : {});
  if (!r.ok || r.stored !== rows) throw new Error(`${file}: expected ${rows} stored companies, got ${JSON.stringify(r)}`);
  return r;
};
const parseOnly = (file: string, rows: number) => {
  const r = child("_intake-parse-child.ts", [file, platform.key]);
  if (!r.ok || r.rows !== rows) throw new Error(`${file}: expected ${rows} accepted rows, got ${JSON.stringify(r)}`);
  return r;
};

/** The file sizes measured: 10,000 and 100,000 rows, or those given (`npx tsx bench/intake.ts 2000`, a quick check of the bench itself). */
const SIZES = process.argv.slice(2).map(Number).filter((n) => Number.isInteger(n) && n > 0).length
  ? process.argv.slice(2).map(Number).filter((n) => Number.isInteger(n) && n > 0)
  : [10_000, 100_000];

type Figures = { rows10k_s: number; rows100k_s: number; peak_rss_mb: number };

/** Both sizes on one database (`pg` as for submit), three runs each interleaved with the baseline's. */
function measure(dir: string, label: string, pg?: string): Figures {
  const figures: Record<string, number> = {};
  let peak = 0;
  console.log(`\n${label}`);
  console.log("rows      file MB   parse+validate s (baseline)   whole submission s   added by encrypt+store s   peak RSS MB");
  for (const rows of SIZES) {
    const file = path.join(dir, `qbo-${rows}.csv`);
    if (!fs.existsSync(file)) writeCsv(file, rows);
    // Three runs each, interleaved; the best time (least disturbed by other load) and the highest RSS.
    const base: Run[] = [];
    const whole: Run[] = [];
    for (let i = 0; i < 3; i++) {
      base.push(parseOnly(file, rows));
      whole.push(submit(file, rows, pg));
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
  return { ...figures, peak_rss_mb: Math.round(peak) } as Figures;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-intake-bench-"));
  const load = os.loadavg()[0] ?? 0;
  const postgres = await startThrowawayPostgres();
  try {
    const sqlite = measure(dir, "SQLite (a temporary file)");
    const pg = measure(dir, `PostgreSQL (a throwaway server of its own: ${postgres.url})`, postgres.url);
    const met = (f: Figures) => (f.rows100k_s <= 3 && f.peak_rss_mb <= 300 ? "MET" : "MISSED");
    console.log(`\nTargets: 100k ≤ 3 s and ≤ 300 MB on both databases (SQLite ${met(sqlite)}, PostgreSQL ${met(pg)}); 10k < 1.5 s.`);
    console.log(`Load average ${load.toFixed(2)} at the start, ${os.loadavg()[0]?.toFixed(2)} at the end, on ${os.cpus().length} cores.`);
    console.log(
      JSON.stringify({
        bench: "intake",
        ...sqlite,
        pg_rows10k_s: pg.rows10k_s,
        pg_rows100k_s: pg.rows100k_s,
        pg_peak_rss_mb: pg.peak_rss_mb,
      }),
    );
  } finally {
    await postgres.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
