/**
 * A TypeScript entry a test runs in processes of its own, bundled once per test file into one ES
 * module (Ferry's sources in it, packages left as imports), so each process starts in about half a
 * second instead of the two or three `--import tsx` takes to load and compile its modules one by
 * one. The file goes in the repository's .tmp (git-ignored), where the packages resolve from.
 *
 *   const child = bundleChild("server/service-client/shared-budget-child.ts");
 *   spawn(process.execPath, [child.file], …);
 *   child.remove(); // in afterAll
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type * as Esbuild from "esbuild";

/** esbuild as tsx (a dev dependency) has it: the compiler `--import tsx` would use, not a dependency of its own. */
const { buildSync } = createRequire(createRequire(import.meta.url).resolve("tsx/package.json"))("esbuild") as typeof Esbuild;

export type BundledChild = { file: string; remove(): void };

export function bundleChild(entry: string, root: string = process.cwd()): BundledChild {
  const dir = path.join(root, ".tmp");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${path.basename(entry, ".ts")}-${randomUUID()}.mjs`);
  buildSync({
    entryPoints: [path.join(root, entry)],
    outfile: file,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    tsconfig: path.join(root, "tsconfig.json"),
    logLevel: "error",
  });
  return { file, remove: () => fs.rmSync(file, { force: true }) };
}
