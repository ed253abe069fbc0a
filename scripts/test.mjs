// `npm test`: the whole suite — typecheck and lint side by side (tsc, ESLint with zero warnings), unit and
// integration tests (Vitest on SQLite, then the files that can differ between the databases again on a
// throwaway PostgreSQL), the production build, and the Playwright journeys in Chromium — ending with one
// line `N passed, N failed`. Before it, each part's wall time, the slowest test files and journeys, and
// any journey over 90 s. As root on Debian it installs what is missing (postgresql, chromium).
//   npm test                 everything
//   npm test -- --only unit  one part: typecheck | lint | unit | e2e (e2e builds first)
import fs from "node:fs";
import path from "node:path";
import browserFinder from "./browser.cjs";
import { BIN, ROOT, run, runLabelled } from "./lib.mjs";
import { startPostgres } from "./postgres.mjs";
import { POSTGRES_PASS_TAGS } from "./database-passes.mjs";
import { playwrightDurations, playwrightOutcome, slowestVitestFiles, vitestOutcome } from "./test-report.mjs";

const onlyIdx = process.argv.indexOf("--only");
const only = onlyIdx > 0 ? process.argv[onlyIdx + 1] : undefined;
const wants = (part) => !only || only === part;
const tmp = path.join(ROOT, ".tmp");
fs.mkdirSync(tmp, { recursive: true });

/** A journey that takes longer than this is named in the summary (reported, never a failure). */
const SLOW_JOURNEY_S = 90;

const results = [];
const timings = [];
const slowFiles = [];
let journeys = [];
const record = (suite, passed, failed, note = "", failures = []) => results.push({ suite, passed, failed, note, failures });
const readJson = (file) => {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return null;
  }
};
const section = (title) => console.log(`\n=== ${title} ===`);
/** Runs one part, noting its wall time for the summary. */
async function timed(part, body) {
  const started = Date.now();
  try {
    return await body();
  } finally {
    timings.push({ part, seconds: (Date.now() - started) / 1000 });
  }
}
const recordVitest = (suite, out, code) => {
  const report = readJson(out);
  if (report) {
    const { passed, failed, failures } = vitestOutcome(report, ROOT, code);
    record(suite, passed, failed, "", failures);
    slowFiles.push(...slowestVitestFiles(report, ROOT, 10).map((f) => ({ ...f, suite })));
  } else {
    record(suite, 0, 1, `vitest exited with ${code} and wrote no report`);
  }
};
const runVitest = (suite, args, env) => {
  const out = path.join(tmp, `${suite}.json`);
  fs.rmSync(out, { force: true });
  const code = run(BIN("vitest"), ["run", ...args, "--reporter=default", "--reporter=json", `--outputFile=${out}`], { env });
  recordVitest(suite, out, code);
};

// The type check and the lint read the same sources and do not depend on each other: side by side.
const checks = [];
if (wants("typecheck")) {
  // Twice: against SQLite's table types (tsconfig.json) and PostgreSQL's (tsconfig.pg.json; docs/database.md).
  checks.push({ suite: "typecheck", command: BIN("tsc"), args: ["--noEmit"] });
  checks.push({ suite: "typecheck-pg", command: BIN("tsc"), args: ["--noEmit", "-p", "tsconfig.pg.json"] });
}
if (wants("lint")) checks.push({ suite: "lint", command: BIN("eslint"), args: [".", "--max-warnings=0"] });
if (checks.length) {
  section(checks.map((c) => c.suite).join(" and "));
  await timed(checks.map((c) => c.suite).join(" + "), () =>
    Promise.all(
      checks.map(async ({ suite, command, args }) => {
        const code = await runLabelled(suite, command, args);
        record(suite, code === 0 ? 1 : 0, code === 0 ? 0 : 1);
      }),
    ),
  );
}

if (wants("unit")) {
  // One throwaway PostgreSQL for the whole Vitest run (Debian's postgresql package, installed here
  // as root when missing, as Chromium is below); the PostgreSQL tests each make a database on it.
  let postgres = null;
  // The server runs in a session of its own, untouched by Ctrl+C: stop it when the run is interrupted.
  const interrupted = () => void postgres?.stop().finally(() => process.exit(130));
  await timed("unit (SQLite)", async () => {
    section("throwaway PostgreSQL for the tests");
    try {
      postgres = await startPostgres({ log: console.log });
      process.once("SIGINT", interrupted).once("SIGTERM", interrupted);
    } catch (error) {
      console.error(error.message);
      record("postgresql", 0, 1, "no PostgreSQL server for the tests");
    }
    section("unit and integration tests (vitest)");
    runVitest("vitest", [], postgres ? { FERRY_TEST_PG_URL: postgres.url } : {});
  });
  if (postgres) {
    // The PostgreSQL pass: the test files about what can differ between the two databases
    // (scripts/database-passes.mjs), again with DATABASE_URL naming the throwaway server.
    await timed("unit (PostgreSQL)", () => {
      section("unit and integration tests on PostgreSQL (vitest)");
      runVitest("vitest-pg", ["--config", "vitest.pg.config.ts", "--tags-filter", POSTGRES_PASS_TAGS], { FERRY_TEST_PG_URL: postgres.url, DATABASE_URL: postgres.url });
    });
  }
  await postgres?.stop();
  process.removeListener("SIGINT", interrupted).removeListener("SIGTERM", interrupted);
}

if (wants("e2e")) {
  section("production build (next build)");
  // tsc has type-checked the same sources (npm test's first part): the build does not again.
  const buildCode = await timed("build", () => run(BIN("next"), ["build"], { env: { NEXT_TELEMETRY_DISABLED: "1", FERRY_BUILD_TYPECHECKED: only ? "" : "1" } }));
  record("build", buildCode === 0 ? 1 : 0, buildCode === 0 ? 0 : 1);
  if (buildCode === 0) {
    section("end-to-end journeys (playwright)");
    let browser;
    try {
      browser = browserFinder.ensureBrowser();
    } catch (error) {
      console.error(error.message);
      record("playwright", 0, 1, "no browser");
    }
    if (browser) {
      const out = path.join(tmp, "playwright.json");
      fs.rmSync(out, { force: true });
      const code = await timed("e2e (Playwright)", () =>
        run(BIN("playwright"), ["test"], { env: { CI: "1", FERRY_BROWSER: browser, PLAYWRIGHT_JSON_OUTPUT_NAME: out } }),
      );
      const report = readJson(out);
      if (report?.stats) {
        const { passed, failed, failures } = playwrightOutcome(report);
        record("playwright", passed, failed, "", failures);
        journeys = playwrightDurations(report);
      } else {
        record("playwright", 0, 1, `playwright exited with ${code} and wrote no report`);
      }
    }
  } else {
    record("playwright", 0, 1, "not run: the build failed");
  }
}

const seconds = (s) => (s >= 120 ? `${(s / 60).toFixed(1)} min` : `${s.toFixed(1)} s`);
console.log("\n=== time ===");
for (const t of timings) console.log(`${t.part.padEnd(20)} ${seconds(t.seconds)}`);
console.log(`${"all parts".padEnd(20)} ${seconds(timings.reduce((n, t) => n + t.seconds, 0))}`);
if (slowFiles.length) {
  console.log("\nslowest test files:");
  for (const f of slowFiles.sort((a, b) => b.seconds - a.seconds).slice(0, 10)) console.log(`  ${seconds(f.seconds).padStart(8)}  ${f.file} (${f.tests} tests${f.suite === "vitest-pg" ? ", PostgreSQL" : ""})`);
}
if (journeys.length) {
  console.log("\nslowest journeys:");
  for (const j of journeys.slice(0, 10)) console.log(`  ${seconds(j.seconds).padStart(8)}  ${j.test}`);
  const slow = journeys.filter((j) => j.seconds > SLOW_JOURNEY_S);
  console.log(slow.length ? `journeys over ${SLOW_JOURNEY_S} s: ${slow.length} (${slow.map((j) => j.test).join("; ")})` : `no journey over ${SLOW_JOURNEY_S} s`);
}

const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
console.log("\n=== summary ===");
for (const r of results) {
  console.log(`${r.suite.padEnd(10)} ${r.passed} passed, ${r.failed} failed${r.note ? ` (${r.note})` : ""}`);
  for (const failure of r.failures) console.log(`  ✘ ${failure}`);
}
const summary = `${passed} passed, ${failed} failed`;
fs.writeFileSync(path.join(tmp, "test-summary.txt"), `${summary}\n`);
console.log(summary);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
