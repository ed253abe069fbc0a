// What `npm test` reads from Vitest's and Playwright's JSON reports: how many passed, how many failed,
// and each failure by file and name with its error's first line, for the summary at the end of a run.
import path from "node:path";

/** The first line of a failure's message, without terminal colours: enough to know it again in the summary. */
export function firstLine(message) {
  const line = (message ?? "").replace(/\x1b\[[0-9;]*m/g, "").split("\n").find((l) => l.trim());
  return line ? line.trim().slice(0, 200) : "";
}

/**
 * A Vitest JSON report (`--reporter=json`). A file that fails to load has no tests but fails the
 * run: it counts as one failure, named as a file that did not load; so does a run that ended with
 * `exitCode` other than 0 (an error outside any test) with no test failed.
 */
export function vitestOutcome(report, root, exitCode) {
  const files = report.testResults ?? [];
  const name = (file) => path.relative(root, file.name);
  const broken = files.filter((f) => f.status === "failed" && (f.assertionResults ?? []).length === 0);
  const failures = [
    ...files.flatMap((f) =>
      (f.assertionResults ?? []).filter((t) => t.status === "failed").map((t) => `${name(f)} › ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`),
    ),
    ...broken.map((f) => `${name(f)} did not load: ${firstLine(f.message)}`),
  ];
  let failed = (report.numFailedTests ?? 0) + broken.length;
  // An error outside any test (a rejection nobody handled) fails the run with every test passed:
  // the report does not say so, only Vitest's exit code; the log above tells which.
  if (exitCode !== 0 && failed === 0) {
    failed = 1;
    failures.push("an error outside any test (an unhandled rejection or exception): see the log above");
  }
  return { passed: report.numPassedTests ?? 0, failed, failures };
}

/**
 * A Playwright JSON report: a test that passed on a retry counts as passed, an error outside any
 * test (a spec that does not load) as a failure.
 */
export function playwrightOutcome(report) {
  const { expected = 0, unexpected = 0, flaky = 0 } = report.stats ?? {};
  const errors = report.errors ?? [];
  const failures = [...unexpectedTests(report.suites ?? []), ...errors.map((e) => firstLine(e.message))];
  return { passed: expected + flaky, failed: unexpected + errors.length, failures };
}

function unexpectedTests(suites, titles = []) {
  return suites.flatMap((suite) => {
    // The outermost suites are the spec files: their titles are already in `file:line`.
    const inner = suite.title && suite.title !== suite.file ? [...titles, suite.title] : titles;
    return [
      ...(suite.specs ?? []).flatMap((spec) =>
        (spec.tests ?? [])
          .filter((t) => t.status === "unexpected")
          .map((t) => `${spec.file}:${spec.line} › ${[...inner, spec.title].join(" › ")}: ${firstLine(t.results?.at(-1)?.error?.message)}`),
      ),
      ...unexpectedTests(suite.suites ?? [], inner),
    ];
  });
}

/** The `n` slowest test files of a Vitest JSON report, slowest first: `{ file, seconds, tests }`. */
export function slowestVitestFiles(report, root, n = 10) {
  return (report.testResults ?? [])
    .map((f) => ({ file: path.relative(root, f.name), seconds: Math.max(0, (f.endTime ?? 0) - (f.startTime ?? 0)) / 1000, tests: (f.assertionResults ?? []).length }))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, n);
}

/** Every test of a Playwright JSON report with how long its last attempt took: `{ test, seconds }` (`file:line › title`). */
export function playwrightDurations(report) {
  const walk = (suites, titles = []) =>
    suites.flatMap((suite) => {
      const inner = suite.title && suite.title !== suite.file ? [...titles, suite.title] : titles;
      return [
        ...(suite.specs ?? []).flatMap((spec) =>
          (spec.tests ?? []).map((t) => ({
            test: `${spec.file}:${spec.line} › ${[...inner, spec.title].join(" › ")}`,
            seconds: (t.results?.at(-1)?.duration ?? 0) / 1000,
          })),
        ),
        ...walk(suite.suites ?? [], inner),
      ];
    });
  return walk(report.suites ?? []).sort((a, b) => b.seconds - a.seconds);
}
