/**
 * ferry/delegate-steps on a fixture of dropped and driven transaction steps, linted as the project
 * lints server/ (typed, with the project's tsconfig): each dropped step is reported on its line,
 * and none of the driven ones is.
 */
import fs from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";
import { describe, expect, it } from "vitest";
import ferry from "./delegate-steps.mjs";

const ROOT = path.resolve(__dirname, "..");
const FIXTURE = path.join(ROOT, "eslint-rules", "fixtures", "dropped-steps.ts");

describe("ferry/delegate-steps", () => {
  it("reports every step made and dropped (a bare call, await, void, a plain yield) and none that is driven", async () => {
    const eslint = new ESLint({
      cwd: ROOT,
      overrideConfigFile: true,
      ignore: false,
      overrideConfig: [
        {
          files: ["**/*.ts"],
          plugins: { ferry },
          languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir: ROOT } },
          rules: { "ferry/delegate-steps": "error" },
        },
      ],
    });
    const [result] = await eslint.lintFiles([FIXTURE]);
    const lines = fs.readFileSync(FIXTURE, "utf8").split("\n");
    const dropped = lines.flatMap((line, i) => (line.includes("// DROPPED") ? [i + 1] : []));
    expect(dropped).toHaveLength(4);
    expect(result!.messages.map((m) => ({ line: m.line, rule: m.ruleId }))).toEqual(dropped.map((line) => ({ line, rule: "ferry/delegate-steps" })));
    expect(result!.messages[0]!.message).toMatch(/^renameUser\(…\) makes a transaction step and drops it, so it never runs: write `yield\* renameUser\(…\)`/);
  }, 60_000);
});
