/**
 * Builders for the intake's tests and bench: valid credentials per platform (the demo's stand-ins), token files as CSV
 * and XLSX bytes (written by csv-stringify and exceljs, as a customer's tools would), and
 * hand-built ZIP files for the cases no spreadsheet program writes on purpose.
 */
import zlib from "node:zlib";
import { stringify } from "csv-stringify/sync";
import ExcelJS from "exceljs";
import type { ManagedPlatform } from "@/server/platforms";
import { credentialsFor } from "@/server/demo/stand-in-credentials";
import { columnLetters } from "@/server/intake/read-xlsx";


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
  const sheet = [...sheetXml(() => rows.map((row, r) => inlineRow(r + 1, row)))()].join("");
  return workbookParts(sheet).map((p) => ({ name: p.name, data: p.data as string }));
}

/** A part's content: text, bytes, or chunks made on demand (so a part of gigabytes is never held whole). */
export type PartData = string | Buffer | (() => Iterable<string | Buffer>);

/** An entry of a ZIP built by `zipOf`. */
export type ZipPart = {
  name: string;
  data: PartData;
  /** Stored instead of deflated. */
  stored?: boolean;
  /** Sizes in a data descriptor after the data (general flag bit 3), as streaming writers write them. */
  dataDescriptor?: boolean;
  /** What the headers declare instead of the true uncompressed size: how a lying ZIP is made. */
  declare?: { central?: number; local?: number; descriptor?: number };
};

function chunksOf(data: PartData): Iterable<string | Buffer> {
  return typeof data === "function" ? data() : [data];
}

/**
 * Deflated segments of chunks a part yields again and again (`repeated` yields one buffer many
 * times): each is deflated once, on its own, ending in a full flush, so its bytes stand for it
 * wherever it comes in the stream. A part that inflates to a gigabyte costs one megabyte deflated
 * and its checksum.
 */
const segments = new WeakMap<Buffer, Buffer>();
/** A self-contained run of deflate blocks, byte-aligned, not the last: segments join into one stream. */
const segment = (bytes: Buffer) => zlib.deflateRawSync(bytes, { level: 6, finishFlush: zlib.constants.Z_FULL_FLUSH });
/** Deflate's last block, empty: what ends a stream of segments. */
const LAST_BLOCK = Buffer.from([0x03, 0x00]);
/** Small chunks (rows of XML) are gathered to this size before they are deflated together. */
const BATCH_BYTES = 1024 * 1024;
/** A buffer chunk at least this large is deflated once per buffer (see `segments`). */
const REUSED_BYTES = 64 * 1024;

/** Deflates (or gathers) a part's chunks as they come, with its true size and checksum. */
function compress(part: ZipPart): { data: Buffer; size: number; crc: number } {
  let size = 0;
  let crc = 0;
  const out: Buffer[] = [];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = () => {
    if (pendingBytes === 0) return;
    out.push(segment(Buffer.concat(pending, pendingBytes)));
    pending = [];
    pendingBytes = 0;
  };
  for (const chunk of chunksOf(part.data)) {
    const b = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    size += b.length;
    crc = zlib.crc32(b, crc);
    if (part.stored) {
      out.push(b);
    } else if (typeof chunk !== "string" && b.length >= REUSED_BYTES) {
      flush();
      let deflated = segments.get(b);
      if (!deflated) segments.set(b, (deflated = segment(b)));
      out.push(deflated);
    } else {
      pending.push(b);
      pendingBytes += b.length;
      if (pendingBytes >= BATCH_BYTES) flush();
    }
  }
  if (!part.stored) {
    flush();
    out.push(LAST_BLOCK);
  }
  return { data: Buffer.concat(out), size, crc };
}

/**
 * A ZIP of deflated (or stored) entries whose headers may lie about their sizes. Unlike
 * `storedZip`, the content is deflated as it is made, so a part that inflates to gigabytes costs
 * only its compressed size here.
 */
export async function zipOf(parts: readonly ZipPart[]): Promise<Buffer> {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const { data, size, crc } = compress(part);
    const name = Buffer.from(part.name, "utf8");
    const method = part.stored ? 0 : 8;
    const flags = 0x0800 | (part.dataDescriptor ? 0x0008 : 0);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    // With a data descriptor the local header leaves the checksum and sizes at 0.
    local.writeUInt32LE(part.dataDescriptor ? 0 : crc, 14);
    local.writeUInt32LE(part.dataDescriptor ? 0 : data.length, 18);
    local.writeUInt32LE(part.declare?.local ?? (part.dataDescriptor ? 0 : size), 22);
    local.writeUInt16LE(name.length, 26);
    const pieces = [local, name, data];
    if (part.dataDescriptor) {
      const descriptor = Buffer.alloc(16);
      descriptor.writeUInt32LE(0x08074b50, 0);
      descriptor.writeUInt32LE(crc, 4);
      descriptor.writeUInt32LE(data.length, 8);
      descriptor.writeUInt32LE(part.declare?.descriptor ?? size, 12);
      pieces.push(descriptor);
    }
    locals.push(...pieces);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(part.declare?.central ?? size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += pieces.reduce((n, b) => n + b.length, 0);
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const XML_HEAD = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n`;
const MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const REL_NS = "http://schemas.openxmlformats.org/package/2006/relationships";
const REL_TYPE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/**
 * The parts of a minimal workbook around a worksheet given as XML (and shared strings, when
 * given), for ZIPs built by hand: content types, relationships, the workbook with one sheet.
 */
export function workbookParts(sheet: PartData, sharedStrings?: PartData): { name: string; data: PartData }[] {
  const sst = sharedStrings !== undefined;
  return [
    {
      name: "[Content_Types].xml",
      data: `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>${sst ? `<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>` : ""}</Types>`,
    },
    {
      name: "_rels/.rels",
      data: `${XML_HEAD}<Relationships xmlns="${REL_NS}"><Relationship Id="rId1" Type="${REL_TYPE}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    },
    {
      name: "xl/workbook.xml",
      data: `${XML_HEAD}<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_TYPE}"><sheets><sheet name="Tokens" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    },
    {
      name: "xl/_rels/workbook.xml.rels",
      data: `${XML_HEAD}<Relationships xmlns="${REL_NS}"><Relationship Id="rId1" Type="${REL_TYPE}/worksheet" Target="worksheets/sheet1.xml"/>${sst ? `<Relationship Id="rId2" Type="${REL_TYPE}/sharedStrings" Target="sharedStrings.xml"/>` : ""}</Relationships>`,
    },
    ...(sst ? [{ name: "xl/sharedStrings.xml", data: sharedStrings }] : []),
    { name: "xl/worksheets/sheet1.xml", data: sheet },
  ];
}

function xmlEscape(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
}

/** A worksheet row of inline strings, as XML. */
export function inlineRow(line: number, cells: readonly string[]): string {
  return `<row r="${line}">${cells.map((v, c) => `<c r="${columnLetters(c + 1)}${line}" t="inlineStr"><is><t>${xmlEscape(v)}</t></is></c>`).join("")}</row>`;
}

/** A worksheet's XML around rows given as XML (chunks made on demand). */
export function sheetXml(rows: () => Iterable<string | Buffer>, options: { before?: string } = {}): () => Iterable<string | Buffer> {
  return function* () {
    yield `${XML_HEAD}<worksheet xmlns="${MAIN_NS}">${options.before ?? ""}<sheetData>`;
    yield* rows();
    yield "</sheetData></worksheet>";
  };
}

/** `bytes` bytes of `unit` repeated, in chunks of about 1 MB. */
export function* repeated(unit: string, bytes: number): Generator<Buffer> {
  const one = Buffer.from(unit, "utf8");
  const chunk = Buffer.alloc(Math.max(one.length, Math.floor((1024 * 1024) / one.length) * one.length), one);
  let left = Math.floor(bytes / one.length) * one.length;
  while (left > 0) {
    const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
    left -= piece.length;
    yield piece;
  }
}
