/**
 * The summary of `npm test` from real reports: Vitest and Playwright run here on small test files
 * written to a temporary folder (one passes, one fails, one does not load; Playwright's without a
 * browser), and what they write is read as `npm test` reads it.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firstLine, playwrightDurations, playwrightOutcome, slowestVitestFiles, vitestOutcome } from "./test-report.mjs";

const ROOT = path.resolve(__dirname, "..");
let dir: string;

beforeAll(() => {
  // Inside the project, so the test files find vitest and @playwright/test in its node_modules.
  fs.mkdirSync(path.join(ROOT, ".tmp"), { recursive: true });
  dir = fs.mkdtempSync(path.join(ROOT, ".tmp", "test-report-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function runTool(bin: string, args: string[], cwd: string) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith("VITEST") || key === "NODE_OPTIONS") delete env[key];
  return spawnSync(path.join(ROOT, "node_modules", ".bin", bin), args, { cwd, env, encoding: "utf8", timeout: 60_000 });
}

/** Runs Vitest on `files` in a folder of their own: its exit code, its JSON report and the folder. */
function runVitest(name: string, files: Record<string, string>) {
  const root = path.join(dir, name);
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, "vitest.config.mjs"), "export default { test: { include: ['*.test.mjs'] } };\n");
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(root, file), text);
  const out = path.join(root, "report.json");
  const ran = runTool("vitest", ["run", "--root", root, "--reporter=json", `--outputFile=${out}`], root);
  return { status: ran.status, report: JSON.parse(fs.readFileSync(out, "utf8")) as unknown, root };
}

describe("the summary of a Vitest report", () => {
  it("counts passes and failures and names each failing test and each file that did not load, with the error's first line", () => {
    const { status, report, root } = runVitest("vitest", {
      "sums.test.mjs": `import { describe, expect, it } from "vitest";
describe("sums", () => {
  it("adds", () => expect(1 + 1).toBe(2));
  it("carries", () => expect(9 + 1, "the carry was lost").toBe(11));
});
`,
      "broken.test.mjs": `throw new Error("the fixture cannot open");\n`,
      "slow.test.mjs": `import { it } from "vitest";\nit("waits", () => new Promise((r) => setTimeout(r, 400)));\n`,
    });
    expect(status).not.toBe(0);

    const outcome = vitestOutcome(report, root, status);
    expect(outcome.passed).toBe(2);
    expect(outcome.failed).toBe(2);
    // The slowest files first, with their time and tests.
    const slowest = slowestVitestFiles(report, root, 2);
    expect(slowest).toHaveLength(2);
    expect(slowest[0]).toMatchObject({ file: "slow.test.mjs", tests: 1 });
    expect(slowest[0]!.seconds).toBeGreaterThanOrEqual(0.4);
    expect(slowest[1]!.seconds).toBeLessThan(slowest[0]!.seconds);
    expect(outcome.failures).toHaveLength(2);
    expect(outcome.failures[0]).toMatch(/^sums\.test\.mjs › sums carries: .*the carry was lost/);
    expect(outcome.failures[1]).toMatch(/^broken\.test\.mjs did not load: .*the fixture cannot open/);
  });

  it("counts a run whose tests all passed but which met an error outside them as failed", () => {
    const { status, report, root } = runVitest("vitest-unhandled", {
      "late.test.mjs": `import { expect, it } from "vitest";
it("passes, leaving a refusal nobody handles", async () => {
  void Promise.reject(new Error("nobody awaited this"));
  await new Promise((r) => setTimeout(r, 50));
  expect(true).toBe(true);
});
`,
    });
    expect(status).not.toBe(0);

    expect(vitestOutcome(report, root, status)).toEqual({ passed: 1, failed: 1, failures: [expect.stringMatching(/^an error outside any test/)] });
    // The same report from a run that ended well is a pass.
    expect(vitestOutcome(report, root, 0)).toEqual({ passed: 1, failed: 0, failures: [] });
  });
});

describe("the summary of a Playwright report", () => {
  it("counts passes and failures and names each failing test with its file, line, describe and error", () => {
    const root = path.join(dir, "playwright");
    fs.mkdirSync(root);
    const out = path.join(root, "report.json");
    fs.writeFileSync(
      path.join(root, "playwright.config.mjs"),
      `export default { testDir: ".", retries: 0, workers: 1, reporter: [["json", { outputFile: ${JSON.stringify(out)} }]] };\n`,
    );
    // No page fixture: Playwright runs these without starting a browser.
    fs.writeFileSync(
      path.join(root, "journey.spec.mjs"),
      `import { expect, test } from "@playwright/test";
test("signs in", () => expect(true).toBe(true));
test("waits", () => new Promise((r) => setTimeout(r, 400)));
test.describe("the bulk run", () => {
  test("ends", () => {
    throw new Error("the run did not end");
  });
});
`,
    );
    const ran = runTool("playwright", ["test", "--config", path.join(root, "playwright.config.mjs")], root);
    expect(ran.status).not.toBe(0);

    const report = JSON.parse(fs.readFileSync(out, "utf8")) as unknown;
    const outcome = playwrightOutcome(report);
    expect(outcome).toMatchObject({ passed: 2, failed: 1 });
    expect(outcome.failures).toEqual([expect.stringMatching(/^journey\.spec\.mjs:5 › the bulk run › ends: Error: the run did not end$/)]);
    // Every test with its time, the slowest first.
    const durations = playwrightDurations(report);
    expect(durations.map((d) => d.test)).toEqual(["journey.spec.mjs:3 › waits", expect.stringMatching(/^journey\.spec\.mjs:\d › /), expect.stringMatching(/^journey\.spec\.mjs:\d › /)]);
    expect(durations[0]!.seconds).toBeGreaterThanOrEqual(0.4);
  });
});

describe("an error's first line", () => {
  it("drops terminal colours and blank lines, and is cut at 200 characters", () => {
    expect(firstLine("\n\x1b[31mAssertionError\x1b[39m: expected 10 to be 11\n    at sums.test.mjs:4")).toBe("AssertionError: expected 10 to be 11");
    expect(firstLine(undefined)).toBe("");
    expect(firstLine("x".repeat(300))).toHaveLength(200);
  });
});
