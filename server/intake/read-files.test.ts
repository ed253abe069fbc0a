/**
 * Reading CSV and XLSX as customers' tools write them: BOM, separators, line ends, quoted line
 * breaks (with physical line numbers), cell references, and cell values that are not plain text.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import ExcelJS from "exceljs";
import { afterEach, describe, expect, it } from "vitest";
import { getManagedPlatform } from "@/server/platforms";
import { parseTokenFile } from "./parse-token-file";
import { detectDelimiter } from "./read-csv";
import { columnLetters } from "./read-xlsx";
import { csvBytes, headerFor, minimalXlsxParts, rowFor, storedZip, streamedXlsxBytes, xlsxBytes } from "../testing/token-files";
import { credentialsFor } from "@/server/demo/stand-in-credentials";
import { readZipDirectory } from "./zip-directory";

const now = new Date("2026-11-22T12:00:00Z");
const qbo = getManagedPlatform("qhyg")!;

function parse(bytes: Uint8Array, fileName = "tokens.csv") {
  return parseTokenFile({ bytes, fileName, platformKey: "qhyg", now });
}

describe("CSV", () => {
  it.each([
    { name: "comma, LF", options: {} },
    { name: "semicolon, CRLF, BOM", options: { delimiter: ";", eol: "\r\n", bom: true } },
    { name: "tab, CR", options: { delimiter: "\t", eol: "\r" } },
  ])("reads $name", async ({ options }) => {
    const result = await parse(csvBytes([headerFor(qbo), rowFor(qbo, 1), rowFor(qbo, 2)], options));
    expect(result).toMatchObject({ ok: true, fileKind: "csv", rowCount: 2, problems: [] });
    expect(result.rows.map((r) => [r.line, r.name, r.credentials])).toEqual([
      [2, "Company 1 Ltd", credentialsFor(qbo, 1)],
      [3, "Company 2 Ltd", credentialsFor(qbo, 2)],
    ]);
    expect(result.rows[0]).toMatchObject({ externalRef: "REF-1", records: 101 });
  });

  it("picks the separator from the header line, ignoring separators inside quotes", () => {
    expect(detectDelimiter('"a,b,c";d;e\n1,2,3,4,5')).toBe(";");
    expect(detectDelimiter("\uFEFFa,b;c,d")).toBe(",");
    expect(detectDelimiter("\n\na\tb\tc")).toBe("\t");
    expect(detectDelimiter("companyName")).toBe(",");
  });

  it("numbers rows by the physical line they start on, across quoted line breaks and blank lines", async () => {
    const [h, a, b, c] = [headerFor(qbo), rowFor(qbo, 1), rowFor(qbo, 2), rowFor(qbo, 3)];
    const text = [
      h.join(","),
      "",
      [`"Two\r\nLines Ltd"`, ...a.slice(1)].join(","),
      "",
      "",
      [`"Three\nline\nname"`, ...b.slice(1)].join(","),
      [`"Quote ""Ltd"""`, ...c.slice(1, 5), "", "", ""].join(","),
    ].join("\r\n");
    const result = await parse(Buffer.from(`\uFEFF${text}`));
    expect(result.rows.map((r) => [r.line, r.name])).toEqual([
      [3, "Two\r\nLines Ltd"],
      [7, "Three\nline\nname"],
      [10, 'Quote "Ltd"'],
    ]);
    // The altered names are reported on the lines they start on.
    expect(result.problems.filter((p) => p.kind === "company_name_altered").map((p) => p.line)).toEqual([3, 7, 10]);
  });

  it("keeps a value with the separator inside quotes whole", async () => {
    const row = rowFor(qbo, 1);
    row[0] = "Smith, Jones & Co; Ltd";
    const result = await parse(csvBytes([headerFor(qbo), row], { delimiter: ";" }));
    expect(result.ok).toBe(true);
    expect(result.rows[0]!.name).toBe("Smith, Jones & Co; Ltd");
  });

  it("keeps non-ASCII company names exactly, with or without a BOM", async () => {
    for (const bom of [true, false]) {
      const row = rowFor(qbo, 1);
      row[0] = "Zürich Bäckerei GmbH — 東京";
      const result = await parse(csvBytes([headerFor(qbo), row], { bom }));
      expect(result.rows[0]!.name).toBe("Zürich Bäckerei GmbH — 東京");
    }
  });
});

describe("XLSX", () => {
  it("reads the first sheet in tab order with cell references, ignoring the others", async () => {
    const result = await parse(await xlsxBytes([headerFor(qbo), rowFor(qbo, 1), [], rowFor(qbo, 2)]), "tokens.xlsx");
    expect(result).toMatchObject({ ok: true, fileKind: "xlsx", rowCount: 2 });
    expect(result.rows.map((r) => [r.line, r.cell, r.credentials])).toEqual([
      [2, "A2", credentialsFor(qbo, 1)],
      [4, "A4", credentialsFor(qbo, 2)],
    ]);
  });

  it("reads the sheet first in tab order, not the first sheet part", async () => {
    const workbook = new ExcelJS.Workbook();
    workbook.addWorksheet("Notes").addRow(["not the tokens"]);
    const tokens = workbook.addWorksheet("Tokens");
    for (const row of [headerFor(qbo), rowFor(qbo, 1)]) tokens.addRow(row);
    // exceljs orders tabs by `orderNo` (not in its type declarations).
    Reflect.set(tokens, "orderNo", -1);
    const bytes = Buffer.from(await workbook.xlsx.writeBuffer());
    expect(readZipDirectory(bytes)!.entries.map((e) => e.name)).toContain("xl/worksheets/sheet2.xml");
    expect(await parse(bytes, "tokens.xlsx")).toMatchObject({ ok: true, rowCount: 1 });
    // And a workbook whose first tab is something else is read from that tab.
    const other = await parse(await xlsxBytes([headerFor(qbo), rowFor(qbo, 1)], { before: [[["not the tokens"]]] }), "tokens.xlsx");
    expect(other.problems.map((p) => p.kind)).toEqual(["missing_header_row"]);
  });

  it("turns numbers, dates, rich text, formulas and booleans into the text a person sees", async () => {
    const row: unknown[] = [
      { richText: [{ text: "Harbour " }, { font: { bold: true }, text: "Books" }] },
      credentialsFor(qbo, 1).accessToken,
      { formula: '"' + credentialsFor(qbo, 1).refreshToken + '"', result: credentialsFor(qbo, 1).refreshToken },
      new Date("2030-01-01T10:30:00Z"),
      913035681234567,
      { text: "CRM-1", hyperlink: "https://crm.example/1" },
      500,
    ];
    const result = await parse(await xlsxBytes([headerFor(qbo), row as never[]]), "tokens.xlsx");
    expect(result.problems).toEqual([]);
    expect(result.rows[0]).toMatchObject({
      name: "Harbour Books",
      externalRef: "CRM-1",
      records: 500,
      credentials: { ...credentialsFor(qbo, 1), expiresAt: "2030-01-01T10:30:00Z", realmId: "913035681234567" },
    });
  });

  it("refuses a number of 16 digits or more, which the spreadsheet may already have altered", async () => {
    const row: unknown[] = [...rowFor(qbo, 1)];
    row[4] = 9130356812345678;
    const result = await parse(await xlsxBytes([headerFor(qbo), row as never[]]), "tokens.xlsx");
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([
      expect.objectContaining({ kind: "lossy_number", severity: "error", line: 2, cell: "E2", column: "realmId", value: "9130356812345678" }),
    ]);
    expect(result.problems[0]!.message).toMatch(/15 significant digits.*Format the column as Text/);
  });

  it("reads a workbook written by a streaming writer (worksheet stored before the shared strings) without temporary files", async () => {
    const bytes = await streamedXlsxBytes([headerFor(qbo), rowFor(qbo, 1), rowFor(qbo, 2)]);
    const names = readZipDirectory(bytes)!.entries.map((e) => e.name);
    expect(names.indexOf("xl/worksheets/sheet1.xml")).toBeLessThan(names.indexOf("xl/sharedStrings.xml"));
    const result = await withEmptyTmpdir(() => parse(bytes, "tokens.xlsx"));
    expect(result.value).toMatchObject({ ok: true, rowCount: 2 });
    expect(result.tmpFiles).toEqual([]);
  });

  it("reads a workbook with inline strings and no shared strings, without temporary files", async () => {
    const result = await withEmptyTmpdir(() => parse(storedZip(minimalXlsxParts([headerFor(qbo), rowFor(qbo, 1)])), "tokens.xlsx"));
    expect(result.value).toMatchObject({ ok: true, rowCount: 1 });
    expect(result.value.rows[0]!.credentials).toEqual(credentialsFor(qbo, 1));
    expect(result.tmpFiles).toEqual([]);
  });

  it("reads a workbook whose ZIP uses ZIP64 records", async () => {
    const bytes = storedZip(minimalXlsxParts([headerFor(qbo), rowFor(qbo, 1)]), { zip64: true });
    expect(readZipDirectory(bytes)!.entries.map((e) => e.name)).toContain("xl/workbook.xml");
    expect(await parse(bytes, "tokens.xlsx")).toMatchObject({ ok: true, rowCount: 1 });
  });

  it("names column letters as Excel does", () => {
    expect([1, 26, 27, 52, 53, 702, 703].map(columnLetters)).toEqual(["A", "Z", "AA", "AZ", "BA", "ZZ", "AAA"]);
  });
});

// exceljs's streaming reader spools worksheets through the `tmp` package, which uses os.tmpdir().
const savedTmpdir = process.env.TMPDIR;
afterEach(() => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
});

/** Runs `fn` with TMPDIR set to a fresh directory, and lists every file created there meanwhile. */
async function withEmptyTmpdir<T>(fn: () => Promise<T>): Promise<{ value: T; tmpFiles: string[] }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "intake-tmp-"));
  process.env.TMPDIR = dir;
  const created = new Set<string>();
  // A spooled worksheet is deleted once read, so watch for it being created rather than look after.
  const watcher = fs.watch(dir, (_event, name) => {
    if (name) created.add(String(name));
  });
  try {
    expect(os.tmpdir()).toBe(dir);
    const value = await fn();
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { value, tmpFiles: [...new Set([...created, ...fs.readdirSync(dir)])] };
  } finally {
    watcher.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
