/**
 * Token files for the intake benches: QuickBooks Online rows with random tokens of realistic
 * length (so compression and string sizes are honest), written as CSV or XLSX.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import ExcelJS from "exceljs";
import { getManagedPlatform } from "@/server/platforms";

export const platform = getManagedPlatform("qhyg")!;
const header = ["companyName", ...platform.credentialFields.map((f) => f.name), "externalRef", "records"];

function row(i: number, quoted = false): string[] {
  const token = (bytes: number) => crypto.randomBytes(bytes).toString("base64url");
  return [
    // Quoted as a spreadsheet writes a name with the separator in it.
    quoted ? `"Company ${i}, Ltd"` : `Company ${i} Ltd`,
    `qhyg.at.${token(36)}`,
    `qhyg.rt.${token(30)}`,
    "2026-12-01T10:00:00Z",
    `9130${String(i).padStart(12, "0")}`,
    `REF-${i}`,
    String(100 + (i % 5_000)),
  ];
}

/**
 * A CSV token file of `rows` companies (CRLF, written in chunks). `quoted`: every company name
 * holds a comma and is quoted, so the file is read by csv-parse rather than the quote-free reader.
 */
export function writeCsv(file: string, rows: number, options: { quoted?: boolean } = {}): void {
  const fd = fs.openSync(file, "w");
  fs.writeSync(fd, `${header.join(",")}\r\n`);
  let chunk: string[] = [];
  for (let i = 0; i < rows; i++) {
    chunk.push(row(i, options.quoted).join(","));
    if (chunk.length === 5_000) {
      fs.writeSync(fd, `${chunk.join("\r\n")}\r\n`);
      chunk = [];
    }
  }
  if (chunk.length) fs.writeSync(fd, `${chunk.join("\r\n")}\r\n`);
  fs.closeSync(fd);
}

/** An XLSX token file of `rows` companies (exceljs's streaming writer, shared strings as Excel writes them). */
export async function writeXlsx(file: string, rows: number): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: true, useStyles: false });
  const sheet = workbook.addWorksheet("Tokens");
  sheet.addRow(header).commit();
  for (let i = 0; i < rows; i++) sheet.addRow(row(i)).commit();
  sheet.commit();
  await workbook.commit();
}
