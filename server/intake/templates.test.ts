/**
 * Templates per platform: the exact columns and one example row, every cell neutralised, and a
 * round trip: each template parses with no problem at all.
 */
import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import { MANAGED_PLATFORMS } from "@/server/platforms";
import { parseTokenFile } from "./parse-token-file";
import { neutraliseSpreadsheetCell } from "./spreadsheet-cell";
import { tokenFileTemplate } from "./templates";

const now = new Date("2026-11-22T12:00:00Z");

describe("neutraliseSpreadsheetCell", () => {
  it.each([
    ["=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"],
    ["+44 20 7946 0000", "'+44 20 7946 0000"],
    ["-5", "'-5"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\t=1", "'\t=1"],
    ["\r=1", "'\r=1"],
  ])("prefixes %j", (value, safe) => {
    expect(neutraliseSpreadsheetCell(value)).toBe(safe);
  });

  it.each(["Harbour Books Ltd", "", "a=b", "O'Brien", " =1", "2026-11-22T10:00:00Z"])("leaves %j alone", (value) => {
    expect(neutraliseSpreadsheetCell(value)).toBe(value);
  });
});

describe.each(MANAGED_PLATFORMS.map((p) => [p.name, p] as const))("%s templates", (_name, platform) => {
  const columns = ["companyName", ...platform.credentialFields.map((f) => f.name), "externalRef", "records"];

  it("CSV: BOM, header row of the exact column names, one example row; parses with no problem", async () => {
    const template = await tokenFileTemplate({ platformKey: platform.key, format: "csv" });
    expect(template.fileName).toMatch(/^ferry-token-file-[a-z-]+\.csv$/);
    expect(template.contentType).toBe("text/csv; charset=utf-8");
    const text = template.bytes.toString("utf8");
    expect(text.startsWith("\uFEFF")).toBe(true);
    const lines = text.slice(1).split("\r\n");
    expect(lines[0]).toBe(columns.join(","));
    expect(lines).toHaveLength(3);
    const result = await parseTokenFile({ bytes: template.bytes, fileName: template.fileName, platformKey: platform.key, now });
    expect(result).toMatchObject({ ok: true, rowCount: 1, problems: [] });
    expect(Object.keys(result.rows[0]!.credentials)).toEqual(platform.credentialFields.map((f) => f.name));
  });

  it("XLSX: Tokens sheet first (text-formatted columns) and a Columns sheet; parses with no problem", async () => {
    const template = await tokenFileTemplate({ platformKey: platform.key, format: "xlsx" });
    expect(template.fileName).toMatch(/\.xlsx$/);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(new Uint8Array(template.bytes).buffer);
    expect(workbook.worksheets.map((w) => w.name)).toEqual(["Tokens", "Columns"]);
    const tokens = workbook.getWorksheet("Tokens")!;
    expect((tokens.getRow(1).values as unknown[]).slice(1)).toEqual(columns);
    expect(tokens.getColumn(1).numFmt).toBe("@");
    expect(tokens.rowCount).toBe(2);
    const result = await parseTokenFile({ bytes: template.bytes, fileName: template.fileName, platformKey: platform.key, now });
    expect(result).toMatchObject({ ok: true, rowCount: 1, problems: [] });
  });
});
