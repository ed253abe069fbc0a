/**
 * The token file as a whole: what it is by content, the limits, and the files with no usable rows.
 * Every refused file gets exactly one problem that says what is wrong and what to do, and nothing
 * of it (no rows) comes back to be stored.
 */
import { describe, expect, it } from "vitest";
import { getManagedPlatform, type PlatformKey } from "@/server/platforms";
import { MAX_DATA_ROWS, MAX_FILE_BYTES } from "./limits";
import { parseTokenFile, readTokenFileInChunks, type TokenFileResult } from "./parse-token-file";
import { csvBytes, headerFor, minimalXlsxParts, rowFor, storedZip, streamedXlsxBytes, xlsxBytes } from "../testing/token-files";

const now = new Date("2026-11-22T12:00:00Z");
const qbo = getManagedPlatform("qhyg")!;

function parse(bytes: Uint8Array, fileName = "tokens.csv", platformKey: PlatformKey = "qhyg") {
  return parseTokenFile({ bytes, fileName, platformKey, now });
}

function expectRefused(result: TokenFileResult, kind: string, message: RegExp) {
  expect(result.ok).toBe(false);
  expect(result.rows).toEqual([]);
  expect(result.problems).toHaveLength(1);
  expect(result.problems[0]).toMatchObject({ kind, severity: "error" });
  expect(result.problems[0]!.message).toMatch(message);
}

const validCsv = () => csvBytes([headerFor(qbo), rowFor(qbo, 1), rowFor(qbo, 2)]);

describe("file type by content", () => {
  const refused: { name: string; fileName: string; bytes: () => Buffer | Promise<Buffer>; fileKind: string; message: RegExp }[] = [
    {
      name: "legacy .xls (OLE compound file)",
      fileName: "tokens.xls",
      bytes: () => Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(504, 1)]),
      fileKind: "xls",
      message: /legacy Excel 97–2003 workbook \(\.xls\).*save it as Excel Workbook \(\.xlsx\) or CSV UTF-8/,
    },
    {
      name: "PDF",
      fileName: "tokens.csv",
      bytes: () => Buffer.from("%PDF-1.7\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n"),
      fileKind: "pdf",
      message: /PDF document, not a token file.*CSV \(UTF-8\) or as an Excel workbook/,
    },
    {
      name: "PNG image",
      fileName: "tokens.xlsx",
      bytes: () => Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]),
      fileKind: "image",
      message: /PNG image, not a token file/,
    },
    {
      name: "JPEG image",
      fileName: "scan.jpg",
      bytes: () => Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46]),
      fileKind: "image",
      message: /JPEG image/,
    },
    {
      name: "another binary (gzip)",
      fileName: "tokens.csv.gz",
      bytes: () => Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 3, 0x4b, 0x4c]),
      fileKind: "binary",
      message: /binary data, not text or a workbook/,
    },
    {
      name: "Word document (a ZIP without a workbook)",
      fileName: "tokens.xlsx",
      bytes: () => storedZip([{ name: "[Content_Types].xml", data: "<Types/>" }, { name: "word/document.xml", data: "<w:document/>" }]),
      fileKind: "zip",
      message: /Word document, not a token file/,
    },
    {
      name: "OpenDocument spreadsheet",
      fileName: "tokens.ods",
      bytes: () => storedZip([{ name: "mimetype", data: "application/vnd.oasis.opendocument.spreadsheet" }, { name: "content.xml", data: "<office/>" }]),
      fileKind: "ods",
      message: /OpenDocument spreadsheet \(\.ods\).*Excel Workbook \(\.xlsx\) or CSV UTF-8/,
    },
    {
      name: "UTF-16 text (Excel's Unicode Text)",
      fileName: "tokens.txt",
      bytes: () => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("companyName\taccessToken\n", "utf16le")]),
      fileKind: "utf16",
      message: /UTF-16 text.*CSV UTF-8/,
    },
  ];

  it.each(refused)("refuses $name with one message", async ({ fileName, bytes, fileKind, message }) => {
    const result = await parse(await bytes(), fileName);
    expectRefused(result, "unsupported_file_type", message);
    expect(result.fileKind).toBe(fileKind);
  });

  it("reads a workbook named .csv as a workbook, and CSV named .xlsx as CSV, with a warning", async () => {
    const asCsv = await parse(await xlsxBytes([headerFor(qbo), rowFor(qbo, 1)]), "tokens.csv");
    expect(asCsv).toMatchObject({ ok: true, fileKind: "xlsx", rowCount: 1 });
    expect(asCsv.problems).toEqual([expect.objectContaining({ kind: "extension_mismatch", severity: "warning" })]);
    const asXlsx = await parse(validCsv(), "tokens.xlsx");
    expect(asXlsx).toMatchObject({ ok: true, fileKind: "csv", rowCount: 2 });
    expect(asXlsx.problems[0]!.message).toBe("The file is named .xlsx but holds CSV text; it was read as CSV.");
  });

  it("refuses a damaged workbook (cut short) with one message", async () => {
    const whole = await xlsxBytes([headerFor(qbo), rowFor(qbo, 1)]);
    const result = await parse(whole.subarray(0, whole.length - 200), "tokens.xlsx");
    expectRefused(result, "unreadable_file", /damaged or incomplete/);
  });

  it("refuses a workbook whose sheet is not well-formed XML with one message", async () => {
    const parts = minimalXlsxParts([headerFor(qbo), rowFor(qbo, 1)]).map((p) =>
      p.name === "xl/worksheets/sheet1.xml" ? { ...p, data: `<worksheet><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>companyName</t></is></c></row><row r="2"><<</sheetData>` } : p,
    );
    expectRefused(await parse(storedZip(parts), "tokens.xlsx"), "unreadable_file", /^The workbook could not be read/);
  });

  it("refuses CSV that is not UTF-8, naming the line of the first bad byte", async () => {
    const latin1 = Buffer.from(`${headerFor(qbo).join(",")}\n${rowFor(qbo, 1).join(",")}\nCaf\xe9 Ltd,x\n`, "latin1");
    const result = await parse(latin1);
    expectRefused(result, "not_utf8", /not UTF-8 text: line 3 .*Windows-1252.*Save it as CSV UTF-8/);
    expect(result.problems[0]!.line).toBe(3);
  });
});

describe("limits", () => {
  it("refuses a file over 20 MB before looking inside it", async () => {
    const big = Buffer.alloc(MAX_FILE_BYTES + 1, 0x61);
    const result = await parse(big);
    expectRefused(result, "file_too_large", /^The file is 20\.0 MB; the limit is 20\.0 MB\./);
    expect(result.fileKind).toBeNull();
    expect(result.rowCount).toBe(0);
  });

  it("accepts a file of exactly 20 MB as far as size goes (empty lines cost nothing)", async () => {
    const header = `${headerFor(qbo).join(",")}\n${rowFor(qbo, 1).join(",")}\n`;
    const padded = Buffer.concat([Buffer.from(header), Buffer.alloc(MAX_FILE_BYTES - header.length, 0x0a)]);
    const result = await parse(padded);
    expect(result).toMatchObject({ ok: true, rowCount: 1 });
  });

  it("stops reading a file of endless rows holding only spaces", async () => {
    const text = `${headerFor(qbo).join(",")}\n${rowFor(qbo, 1).join(",")}\n${" \n".repeat(MAX_DATA_ROWS + 10)}`;
    const result = await parse(Buffer.from(text));
    expectRefused(result, "too_many_rows", /more than 100,000 rows holding only spaces/);
    expect(result.problems[0]!.line).toBe(MAX_DATA_ROWS + 3);
  });

  it("refuses a CSV of more than 100,000 companies, stopping at the row after the limit", async () => {
    const lines = [`companyName,accessToken`];
    for (let i = 0; i < MAX_DATA_ROWS + 500; i++) lines.push(`C${i},t`);
    const result = await parse(Buffer.from(lines.join("\n")));
    expectRefused(result, "too_many_rows", /more than 100,000 companies \(company 100,001 is on line 100002\)/);
    expect(result.rowCount).toBe(MAX_DATA_ROWS + 1);
    expect(result.problems[0]!.line).toBe(MAX_DATA_ROWS + 2);
  });

  it("refuses a workbook of more than 100,000 companies", async () => {
    function* rows() {
      yield ["companyName"];
      for (let i = 0; i < MAX_DATA_ROWS + 1; i++) yield [`C${i}`];
    }
    const result = await parse(await streamedXlsxBytes(rows()), "tokens.xlsx");
    expectRefused(result, "too_many_rows", /more than 100,000 companies \(company 100,001 is on row 100002\)/);
    // Writing and reading 100,000 rows of a workbook is seconds of CPU: more on a busy machine.
  }, 120_000);

  it("refuses a workbook that would unzip to far more than it weighs", async () => {
    const parts = minimalXlsxParts([headerFor(qbo), rowFor(qbo, 1)]).map((p) =>
      p.name === "xl/worksheets/sheet1.xml" ? { ...p, declaredSize: 400 * 1024 * 1024 } : p,
    );
    const result = await parse(storedZip(parts), "tokens.xlsx");
    expectRefused(result, "file_too_large", /unzips to 400 MB, more than the 128 MB Ferry reads/);
  });
});

describe("files without companies", () => {
  it.each([
    { name: "no bytes at all", bytes: Buffer.alloc(0) },
    { name: "only a BOM", bytes: Buffer.from("\uFEFF") },
    { name: "only blank lines and spaces", bytes: Buffer.from("\r\n  \n\n") },
    { name: "only empty cells", bytes: Buffer.from(",,,\n , ,\n") },
  ])("calls a CSV with $name empty", async ({ bytes }) => {
    expectRefused(await parse(bytes), "file_empty", /^The file is empty\. Fill in the QuickBooks Online template/);
  });

  it("calls a workbook whose first sheet has no cells empty", async () => {
    expectRefused(await parse(await xlsxBytes([]), "tokens.xlsx"), "file_empty", /^The file is empty/);
  });

  it.each(["csv", "xlsx"] as const)("says a %s with only a header row has no companies", async (kind) => {
    const bytes = kind === "csv" ? csvBytes([headerFor(qbo)]) : await xlsxBytes([headerFor(qbo)]);
    const result = await parse(bytes, `tokens.${kind}`);
    expectRefused(result, "header_only", /header row but no companies/);
    expect(result.problems[0]!.line).toBe(1);
  });
});

describe("another platform's columns", () => {
  const cases: { file: PlatformKey; engagement: PlatformKey; telling: string }[] = [
    { file: "qhyg", engagement: "rwuv", telling: "realmId" },
    { file: "qhyg", engagement: "fbrh", telling: "realmId" },
    { file: "fztf", engagement: "qhyg", telling: "shopDomain" },
    { file: "pbtz", engagement: "vxvy", telling: "businessId" },
    { file: "rwuv", engagement: "pbtz", telling: "organizationId, dataCenter" },
    { file: "vxvy", engagement: "fztf", telling: "refreshToken, expiresAt, accountId" },
  ];
  it.each(cases)("says a $file file is not a $engagement file, in one message", async ({ file, engagement, telling }) => {
    const from = getManagedPlatform(file)!;
    const to = getManagedPlatform(engagement)!;
    for (const kind of ["csv", "xlsx"] as const) {
      const rows = [headerFor(from), rowFor(from, 1)];
      const result = await parseTokenFile({ bytes: kind === "csv" ? csvBytes(rows) : await xlsxBytes(rows), fileName: `t.${kind}`, platformKey: engagement, now });
      expectRefused(result, "wrong_platform", new RegExp(`^These columns are a ${from.name} token file \\(${telling}\\), but this engagement is for ${to.name}`));
      expect(result.preview.rows).toEqual([]);
    }
  });

  it("treats a FreeAgent file for QuickBooks Online as a missing realmId column, not another platform", async () => {
    const freeAgent = getManagedPlatform("fbrh")!;
    const result = await parse(csvBytes([headerFor(freeAgent), rowFor(freeAgent, 1)]));
    expect(result.problems.map((p) => p.kind)).toEqual(["missing_column"]);
    expect(result.problems[0]).toMatchObject({ column: "realmId", line: 1 });
  });
});

describe("header row", () => {
  it("refuses a file whose first row is data, without quoting that row back", async () => {
    const row = rowFor(qbo, 1);
    const result = await parse(csvBytes([row, rowFor(qbo, 2)]));
    expectRefused(result, "missing_header_row", /^The first row must name the columns \(companyName, accessToken, refreshToken, realmId, and optionally expiresAt, externalRef, records, the old app.s counts \(count_<dataType>\)\)/);
    expect(JSON.stringify(result)).not.toContain(row[1]);
  });

  it("reports a quoted value that is never closed, with the line it starts on", async () => {
    const text = `${headerFor(qbo).join(",")}\n${rowFor(qbo, 1).join(",")}\n"Open Ltd,${rowFor(qbo, 2).slice(1).join(",")}\n${rowFor(qbo, 3).join(",")}\n`;
    const result = await parse(Buffer.from(text));
    expectRefused(result, "unreadable_file", /quoted value that starts on line 3 is never closed/);
    expect(result.problems[0]!.line).toBe(3);
  });
});

describe("rows handed on in batches", () => {
  async function inBatches(rows: string[][], size: number, fileName = "tokens.csv") {
    const handed: { offset: number; lines: number[] }[] = [];
    const bytes = fileName.endsWith(".xlsx") ? await xlsxBytes(rows) : csvBytes(rows);
    const result = await parseTokenFile({ bytes, fileName, platformKey: "qhyg", now, batches: { size, take: (batch, offset) => handed.push({ offset, lines: batch.map((r) => r.line) }) } });
    return { result, handed };
  }

  it.each(["tokens.csv", "tokens.xlsx"])("hands %s's companies on as they are read, each batch with the position of its first, the last at the end", async (fileName) => {
    const { result, handed } = await inBatches([headerFor(qbo), ...[1, 2, 3, 4, 5].map((i) => rowFor(qbo, i))], 2, fileName);
    expect(result).toMatchObject({ ok: true, rowCount: 5, rows: [] });
    expect(handed).toEqual([
      { offset: 0, lines: [2, 3] },
      { offset: 2, lines: [4, 5] },
      { offset: 4, lines: [6] },
    ]);
  });

  it("stops handing rows on at the first error, and the file is refused", async () => {
    const broken = rowFor(qbo, 4);
    broken[1] = "";
    const { result, handed } = await inBatches([headerFor(qbo), ...[1, 2, 3].map((i) => rowFor(qbo, i)), broken, rowFor(qbo, 5), rowFor(qbo, 6)], 2);
    expect(result.ok).toBe(false);
    expect(result.rows).toEqual([]);
    // Only the batch completed before the error; the caller drops it with the refused file.
    expect(handed).toEqual([{ offset: 0, lines: [2, 3] }]);
  });
});

describe("a quote-free CSV read a chunk at a time", () => {
  function drive(chunks: Generator<void, TokenFileResult, void>): { result: TokenFileResult; yields: number } {
    let yields = 0;
    for (;;) {
      const step = chunks.next();
      if (step.done) return { result: step.value, yields };
      yields += 1;
    }
  }

  it("gives parseTokenFile's result, problems and batches, yielding between chunks", async () => {
    const broken = rowFor(qbo, 3);
    broken[1] = "";
    for (const rows of [[headerFor(qbo), ...[1, 2, 3, 4, 5].map((i) => rowFor(qbo, i))], [headerFor(qbo), rowFor(qbo, 1), rowFor(qbo, 2), broken, rowFor(qbo, 4)]]) {
      const bytes = csvBytes(rows);
      const whole: number[][] = [];
      const expected = await parseTokenFile({ bytes, fileName: "tokens.csv", platformKey: "qhyg", now, batches: { size: 2, take: (batch) => whole.push(batch.map((r) => r.line)) } });
      const chunked: number[][] = [];
      const { result, yields } = drive(readTokenFileInChunks({ bytes, fileName: "tokens.csv", platformKey: "qhyg", now, batches: { size: 2, take: (batch) => chunked.push(batch.map((r) => r.line)) } }, 50)!);
      expect(result).toEqual(expected);
      expect(chunked).toEqual(whole);
      expect(yields).toBeGreaterThan(1);
    }
  });

  it("refuses at once what is refused before the rows, and leaves workbooks and quoted CSV to parseTokenFile", async () => {
    const latin1 = Buffer.concat([csvBytes([headerFor(qbo)]), Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x0a])]);
    const refused = drive(readTokenFileInChunks({ bytes: latin1, fileName: "tokens.csv", platformKey: "qhyg", now })!);
    expect(refused.yields).toBe(0);
    expect(refused.result).toEqual(await parseTokenFile({ bytes: latin1, fileName: "tokens.csv", platformKey: "qhyg", now }));
    expect(refused.result.problems[0]?.kind).toBe("not_utf8");
    expect(readTokenFileInChunks({ bytes: await xlsxBytes([headerFor(qbo), rowFor(qbo, 1)]), fileName: "tokens.xlsx", platformKey: "qhyg", now })).toBeNull();
    const quoted = rowFor(qbo, 1);
    quoted[0] = "Smith, Jones & Co";
    expect(readTokenFileInChunks({ bytes: csvBytes([headerFor(qbo), quoted]), fileName: "tokens.csv", platformKey: "qhyg", now })).toBeNull();
  });
});
