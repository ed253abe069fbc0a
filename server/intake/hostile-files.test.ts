/**
 * Token files made to hurt the server (hostile-files.ts, built in code): lying and honest ZIP
 * bombs on the sheet and on the shared strings, one huge cell, millions of shared strings, XML
 * that makes the streaming reader gather or build too much, too many rows, a huge CSV cell. Each
 * is refused with one clear problem and no rows; reading stops early (the bytes inflated are
 * counted); and parsing them fits in a small heap, in a process of its own.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOSTILE_FILES, HOSTILE_WORKBOOKS, type HostileFile } from "../testing/hostile-files";
import { MAX_CELL_BYTES } from "./limits";
import { parseTokenFile } from "./parse-token-file";
import { checkParts } from "./workbook-parts";
import { readZipDirectory } from "./zip-directory";

const now = new Date("2026-11-22T12:00:00Z");
const built = new Map<string, Buffer>();

beforeAll(async () => {
  for (const file of HOSTILE_FILES) built.set(file.name, await file.build());
}, 120_000);

function bytesOf(name: string): Buffer {
  const bytes = built.get(name);
  if (!bytes) throw new Error(`no hostile file ${name}`);
  return bytes;
}

const byName = (name: string) => HOSTILE_WORKBOOKS.find((f) => f.name === name)!;

describe("every hostile file", () => {
  it.each(HOSTILE_FILES.map((f) => [f.name, f] as [string, HostileFile]))("refuses %s with one clear problem, and returns no rows", async (_, file) => {
    const bytes = bytesOf(file.name);
    const result = await parseTokenFile({ bytes, fileName: file.fileName, platformKey: "qhyg", now });
    expect(result.ok).toBe(false);
    expect(result.rows).toEqual([]);
    expect(result.problems).toHaveLength(1);
    const [problem] = result.problems;
    if (file.expect.kind === null) {
      // The upload route refuses it before reading; the parser on its own refuses it by size too.
      expect(problem).toMatchObject({ kind: "file_too_large", message: expect.stringMatching(/the limit is 20\.0 MB/) });
    } else {
      expect(problem).toMatchObject({ kind: file.expect.kind, severity: "error" });
      expect(problem!.message).toMatch(file.expect.message);
    }
    // Nothing of the file comes back: no problem carries a long value or message.
    expect(JSON.stringify(result).length).toBeLessThan(4_000);
  }, 60_000);

  it("says where the huge value is: the cell in a workbook, the line in a CSV", async () => {
    const cell = await parseTokenFile({ bytes: bytesOf("huge-cell"), fileName: "huge-cell.xlsx", platformKey: "qhyg", now });
    expect(cell.problems[0]).toMatchObject({ kind: "value_too_long", line: 2, cell: "B2" });
    const csv = await parseTokenFile({ bytes: bytesOf("csv-huge-cell"), fileName: "huge-cell.csv", platformKey: "qhyg", now });
    expect(csv.problems[0]).toMatchObject({ kind: "value_too_long", line: 2 });
    const far = await parseTokenFile({ bytes: bytesOf("far-column"), fileName: "far-column.xlsx", platformKey: "qhyg", now });
    expect(far.problems[0]).toMatchObject({ kind: "unknown_column", line: 2, cell: "XFD2" });
  });
});

describe("reading stops early", () => {
  async function check(name: string) {
    const bytes = bytesOf(name);
    const zip = readZipDirectory(bytes)!;
    return checkParts(bytes, zip, zip.entries.map((e) => e.name).filter((n) => n.startsWith("xl/")));
  }

  it.each(["lying-sheet", "lying-shared-strings", "lying-descriptor"])("stops inflating %s just past the 4 KB its headers declare (of up to 1 GB)", async (name) => {
    const result = await check(name);
    expect(result.ok).toBe(false);
    // The other parts are a few hundred bytes; one chunk of 64 KB past the lie at most.
    expect(result.inflated).toBeLessThan(4096 + 64 * 1024 + 4096);
    if (!result.ok) expect(result.error.message).toMatch(byName(name).expect.message);
  });

  it.each(["honest-sheet-bomb", "honest-shared-strings-bomb"])("refuses %s by its declared sizes, without inflating anything", async (name) => {
    const result = await check(name);
    expect(result).toMatchObject({ ok: false, inflated: 0 });
  });

  it.each(["huge-cell", "huge-shared-string", "text-between-cells"])("stops %s at the first 64 KB of text in one value (of 60–100 MB)", async (name) => {
    const result = await check(name);
    expect(result.ok).toBe(false);
    expect(result.inflated).toBeLessThan(MAX_CELL_BYTES + 2 * 64 * 1024);
  });

  it("stops a part of millions of elements at the cap, and deep nesting at 64 levels", async () => {
    const many = await check("many-shared-strings");
    expect(many.ok).toBe(false);
    // 2,500,000 elements of 9 bytes on average, of 54 MB.
    expect(many.inflated).toBeLessThan(25 * 1024 * 1024);
    const deep = await check("deep-nesting");
    expect(deep.ok).toBe(false);
    expect(deep.inflated).toBeLessThan(128 * 1024);
  });
});

describe("memory stays bounded", () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-hostile-"));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("parses the bombs, the huge values and the millions of strings in a process limited to a 160 MB heap", () => {
    const names = ["lying-sheet", "lying-shared-strings", "lying-descriptor", "huge-cell", "huge-shared-string", "many-shared-strings", "text-between-cells", "deep-nesting", "column-range", "csv-huge-cell"];
    const files = names.map((name) => {
      const file = path.join(dir, `${name}.${name.startsWith("csv") ? "csv" : "xlsx"}`);
      fs.writeFileSync(file, bytesOf(name));
      return file;
    });
    const child = spawnSync(process.execPath, ["--max-old-space-size=160", "--import", "tsx", path.join(__dirname, "..", "testing", "parse-files-child.ts"), "qhyg", ...files], {
      encoding: "utf8",
      env: { ...process.env, NODE_ENV: "production" },
      timeout: 120_000,
    });
    // A file that made the parse gather hundreds of megabytes would end the process ("heap out of memory").
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    const lines = child.stdout.trim().split("\n").map((l) => JSON.parse(l) as { file: string; ok: boolean; rows: number; kinds: string[]; peakRssMb: number });
    expect(lines.map((l) => [l.file.replace(/\.\w+$/, ""), l.ok, l.rows, l.kinds.length])).toEqual(names.map((n) => [n, false, 0, 1]));
    expect(Math.max(...lines.map((l) => l.peakRssMb))).toBeLessThan(400);
  }, 180_000);
});
