/**
 * Builders for the intake's tests and bench: valid credentials per platform, token files as CSV
 * and XLSX bytes (written by csv-stringify and exceljs, as a customer's tools would), and
 * hand-built ZIP files for the cases no spreadsheet program writes on purpose.
 */
import zlib from "node:zlib";
import { stringify } from "csv-stringify/sync";
import ExcelJS from "exceljs";
import type { ManagedPlatform } from "@/server/platforms";
import { columnLetters } from "./read-xlsx";

/** Valid, distinct credentials for company `i` of a platform (every field, optional ones included). */
export function credentialsFor(platform: ManagedPlatform, i: number): Record<string, string> {
  const tag = i.toString(36).padStart(6, "0");
  const values: Record<string, string> = {};
  for (const field of platform.credentialFields) {
    switch (field.name) {
      case "accessToken":
        values[field.name] = platform.key === "fztf" ? `shpat_${tag}9f8e7d6c5b4a` : `${platform.key}.at.${tag}.f00dfeedc0ffee`;
        break;
      case "refreshToken":
        values[field.name] = `${platform.key}.rt.${tag}.deadbeef1234`;
        break;
      case "expiresAt":
        values[field.name] = "2030-01-01T00:00:00Z";
        break;
      case "realmId":
        values[field.name] = `91303568${String(i).padStart(8, "0")}`;
        break;
      case "accountId":
        values[field.name] = `AC${tag}`;
        break;
      case "businessId":
        values[field.name] = Buffer.from(`Business:${tag}`).toString("base64");
        break;
      case "organizationId":
        values[field.name] = String(600000000 + i);
        break;
      case "shopDomain":
        values[field.name] = `shop-${tag}.myshopify.com`;
        break;
      case "dataCenter":
        values[field.name] = "eu";
        break;
      default:
        throw new Error(`credentialsFor: no sample for ${field.name}`);
    }
  }
  return values;
}

/** The full header of a platform's token file. */
export function headerFor(platform: ManagedPlatform): string[] {
  return ["companyName", ...platform.credentialFields.map((f) => f.name), "externalRef", "records"];
}

/** A valid data row for company `i`, in `headerFor` order. */
export function rowFor(platform: ManagedPlatform, i: number): string[] {
  const credentials = credentialsFor(platform, i);
  return [`Company ${i} Ltd`, ...platform.credentialFields.map((f) => credentials[f.name]!), `REF-${i}`, String(100 + i)];
}

/** Every secret value in `rows` (by the header's secret columns), to scan results for. */
export function secretsIn(platform: ManagedPlatform, rows: readonly string[][]): string[] {
  const header = headerFor(platform);
  const secret = new Set(platform.credentialFields.filter((f) => f.secret).map((f) => f.name));
  return rows.flatMap((row) => row.filter((_, i) => secret.has(header[i]!)));
}

/** CSV bytes as a spreadsheet program writes them (values quoted only when needed). */
export function csvBytes(rows: readonly (readonly string[])[], options: { delimiter?: string; bom?: boolean; eol?: string } = {}): Buffer {
  const text = stringify(rows as string[][], { delimiter: options.delimiter ?? ",", record_delimiter: options.eol ?? "\n" });
  return Buffer.from(`${options.bom ? "\uFEFF" : ""}${text}`, "utf8");
}

type CellInput = ExcelJS.CellValue;

/**
 * XLSX bytes from exceljs. `before` adds sheets ahead of the data sheet in tab order; `dataSheetFirst`
 * false puts the data sheet's file after theirs too. Strings become shared strings, as Excel does.
 */
export async function xlsxBytes(rows: readonly (readonly CellInput[])[], options: { before?: readonly (readonly (readonly CellInput[])[])[] } = {}): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  for (const [n, sheetRows] of (options.before ?? []).entries()) {
    const sheet = workbook.addWorksheet(`Other ${n + 1}`);
    for (const row of sheetRows) sheet.addRow([...row]);
  }
  const sheet = workbook.addWorksheet("Tokens");
  for (const row of rows) sheet.addRow([...row]);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** XLSX bytes written with exceljs's streaming writer (worksheet stored before the shared strings). */
export async function streamedXlsxBytes(rows: Iterable<readonly string[]>): Promise<Buffer> {
  const { PassThrough } = await import("node:stream");
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on("data", (c: Buffer) => chunks.push(c));
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useSharedStrings: true, useStyles: false });
  const sheet = workbook.addWorksheet("Tokens");
  for (const row of rows) sheet.addRow([...row]).commit();
  sheet.commit();
  await workbook.commit();
  return Buffer.concat(chunks);
}

/**
 * A ZIP of stored (uncompressed) entries. `zip64` writes every size and offset through ZIP64
 * records, as some streaming writers always do; `declaredSize` overrides an entry's uncompressed
 * size in the central directory (to build a would-be zip bomb).
 */
export function storedZip(entries: readonly { name: string; data: Buffer | string; declaredSize?: number }[], options: { zip64?: boolean } = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const data = Buffer.isBuffer(entry.data) ? entry.data : Buffer.from(entry.data);
    const name = Buffer.from(entry.name);
    const crc = zlib.crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(options.zip64 ? 45 : 20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, data);
    const extra = options.zip64 ? Buffer.alloc(28) : Buffer.alloc(0);
    if (options.zip64) {
      extra.writeUInt16LE(0x0001, 0);
      extra.writeUInt16LE(24, 2);
      extra.writeBigUInt64LE(BigInt(entry.declaredSize ?? data.length), 4);
      extra.writeBigUInt64LE(BigInt(data.length), 12);
      extra.writeBigUInt64LE(BigInt(offset), 20);
    }
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(options.zip64 ? 45 : 20, 4);
    central.writeUInt16LE(options.zip64 ? 45 : 20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(options.zip64 ? 0xffffffff : data.length, 20);
    central.writeUInt32LE(options.zip64 ? 0xffffffff : (entry.declaredSize ?? data.length), 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(extra.length, 30);
    central.writeUInt32LE(options.zip64 ? 0xffffffff : offset, 42);
    centrals.push(central, name, extra);
    offset += 30 + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const tail: Buffer[] = [];
  if (options.zip64) {
    const end64 = Buffer.alloc(56);
    end64.writeUInt32LE(0x06064b50, 0);
    end64.writeBigUInt64LE(44n, 4);
    end64.writeUInt16LE(45, 12);
    end64.writeUInt16LE(45, 14);
    end64.writeBigUInt64LE(BigInt(entries.length), 24);
    end64.writeBigUInt64LE(BigInt(entries.length), 32);
    end64.writeBigUInt64LE(BigInt(directory.length), 40);
    end64.writeBigUInt64LE(BigInt(offset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(offset + directory.length), 8);
    locator.writeUInt32LE(1, 16);
    tail.push(end64, locator);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(options.zip64 ? 0xffff : entries.length, 8);
  end.writeUInt16LE(options.zip64 ? 0xffff : entries.length, 10);
  end.writeUInt32LE(options.zip64 ? 0xffffffff : directory.length, 12);
  end.writeUInt32LE(options.zip64 ? 0xffffffff : offset, 16);
  return Buffer.concat([...locals, directory, ...tail, end]);
}

/** The parts of a minimal XLSX workbook with inline strings, for hand-built ZIPs. */
export function minimalXlsxParts(rows: readonly (readonly string[])[]): { name: string; data: string }[] {
  const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  const sheetRows = rows
    .map((row, r) => `<row r="${r + 1}">${row.map((v, c) => `<c r="${columnLetters(c + 1)}${r + 1}" t="inlineStr"><is><t>${esc(v)}</t></is></c>`).join("")}</row>`)
    .join("");
  return [
    {
      name: "[Content_Types].xml",
      data: `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
    },
    {
      name: "_rels/.rels",
      data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    },
    {
      name: "xl/workbook.xml",
      data: `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Tokens" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    },
    {
      name: "xl/_rels/workbook.xml.rels",
      data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    },
    {
      name: "xl/worksheets/sheet1.xml",
      data: `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${sheetRows}</sheetData></worksheet>`,
    },
  ];
}
