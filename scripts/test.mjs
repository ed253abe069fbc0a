// `npm test`: the whole suite — typecheck, lint (ESLint, zero warnings), unit and integration tests (Vitest, with a
// throwaway PostgreSQL for its PostgreSQL tests), the production build, and the Playwright journeys in Chromium —
// ending with one line `N passed, N failed`. As root on Debian it installs what is missing (postgresql, chromium).
//   npm test                 everything
//   npm test -- --only unit  one part: typecheck | lint | unit | e2e (e2e builds first)
import fs from "node:fs";
import path from "node:path";
import browserFinder from "./browser.cjs";
import { BIN, ROOT, run } from "./lib.mjs";
import { startPostgres } from "./postgres.mjs";
import { playwrightOutcome, vitestOutcome } from "./test-report.mjs";

const onlyIdx = process.argv.indexOf("--only");
const only = onlyIdx > 0 ? process.argv[onlyIdx + 1] : undefined;
const wants = (part) => !only || only === part;
const tmp = path.join(ROOT, ".tmp");
fs.mkdirSync(tmp, { recursive: true });

const results = [];
const record = (suite, passed, failed, note = "", failures = []) => results.push({ suite, passed, failed, note, failures });
const readJson = (file) => {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return null;
  }
};
const section = (title) => console.log(`\n=== ${title} ===`);
const recordVitest = (suite, out, code) => {
  const report = readJson(out);
  if (report) {
    const { passed, failed, failures } = vitestOutcome(report, ROOT, code);
    record(suite, passed, failed, "", failures);
  } else {
    record(suite, 0, 1, `vitest exited with ${code} and wrote no report`);
  }
};

if (wants("typecheck")) {
  section("typecheck (tsc --noEmit)");
  const code = run(BIN("tsc"), ["--noEmit"]);
  record("typecheck", code === 0 ? 1 : 0, code === 0 ? 0 : 1);
}

if (wants("lint")) {
  section("lint (eslint, zero warnings)");
  const code = run(BIN("eslint"), [".", "--max-warnings=0"]);
  record("lint", code === 0 ? 1 : 0, code === 0 ? 0 : 1);
}

if (wants("unit")) {
  // One throwaway PostgreSQL for the whole Vitest run (Debian's postgresql package, installed here
  // as root when missing, as Chromium is below); the PostgreSQL tests each make a database on it.
  section("throwaway PostgreSQL for the tests");
  let postgres = null;
  // The server runs in a session of its own, untouched by Ctrl+C: stop it when the run is interrupted.
  const interrupted = () => void postgres?.stop().finally(() => process.exit(130));
  try {
    postgres = await startPostgres({ log: console.log });
    process.once("SIGINT", interrupted).once("SIGTERM", interrupted);
  } catch (error) {
    console.error(error.message);
    record("postgresql", 0, 1, "no PostgreSQL server for the tests");
  }
  section("unit and integration tests (vitest)");
  const out = path.join(tmp, "vitest.json");
  fs.rmSync(out, { force: true });
  const code = run(BIN("vitest"), ["run", "--reporter=default", "--reporter=json", `--outputFile=${out}`], {
    env: postgres ? { FERRY_TEST_PG_URL: postgres.url } : {},
  });
  recordVitest("vitest", out, code);
  if (postgres) {
    // The PostgreSQL pass: every test file whose code reaches the app database (vitest.pg.config.ts),
    // again with DATABASE_URL naming the throwaway server (a database of its own per file).
    section("unit and integration tests on PostgreSQL (vitest)");
    const pgOut = path.join(tmp, "vitest-pg.json");
    fs.rmSync(pgOut, { force: true });
    const pgCode = run(BIN("vitest"), ["run", "--config", "vitest.pg.config.ts", "--reporter=default", "--reporter=json", `--outputFile=${pgOut}`], {
      env: { FERRY_TEST_PG_URL: postgres.url, DATABASE_URL: postgres.url },
    });
    recordVitest("vitest-pg", pgOut, pgCode);
  }
  await postgres?.stop();
  process.removeListener("SIGINT", interrupted).removeListener("SIGTERM", interrupted);
}

if (wants("e2e")) {
  section("production build (next build)");
  const buildCode = run(BIN("next"), ["build"], { env: { NEXT_TELEMETRY_DISABLED: "1" } });
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
      const code = run(BIN("playwright"), ["test"], {
        env: { CI: "1", FERRY_BROWSER: browser, PLAYWRIGHT_JSON_OUTPUT_NAME: out },
      });
      const report = readJson(out);
      if (report?.stats) {
        const { passed, failed, failures } = playwrightOutcome(report);
        record("playwright", passed, failed, "", failures);
      } else {
        record("playwright", 0, 1, `playwright exited with ${code} and wrote no report`);
      }
    }
  } else {
    record("playwright", 0, 1, "not run: the build failed");
  }
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
