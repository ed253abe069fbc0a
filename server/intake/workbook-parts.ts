/**
 * The parts of a workbook Ferry reads, unzipped and checked before exceljs's streaming reader sees
 * a byte of them, then handed to it as exactly the bytes that were checked.
 *
 * A ZIP's sizes are what its writer says: a 400 KB file can declare 4 KB for a sheet that inflates
 * to 400 MB. So the declared sizes are only a first, cheap refusal; then each part is inflated
 * chunk by chunk (nothing kept) and
 * - the bytes actually inflated are counted, per part and in total, and reading stops as soon as
 *   they pass the part's declared size or a cap (MAX_UNZIPPED_BYTES, MAX_SHARED_STRINGS_BYTES,
 *   MAX_MODEL_PART_BYTES);
 * - the size and checksum at the end must be the ones the central directory, the local header and
 *   (when there is one) the data descriptor give;
 * - the XML is scanned for what would make the reader hold too much at once (xml-bounds.ts).
 * Only then does the reader get the parts, inflated again into a ZIP of stored entries written
 * here (sizes and checksums as measured), so it never inflates anything itself and cannot read
 * the original entries any other way than they were checked.
 */
import { Readable } from "node:stream";
import zlib from "node:zlib";
import { MAX_MODEL_PART_BYTES, MAX_SHARED_STRINGS_BYTES, MAX_SHEET_CELLS, MAX_UNZIPPED_BYTES } from "./limits";
import { FileReadError } from "./sheet-rows";
import { XmlBounds, type XmlBreach, type XmlPartKind } from "./xml-bounds";
import { readUint64, type ZipDirectory, type ZipEntry } from "./zip-directory";

const LOCAL_HEADER = 0x04034b50;
const DATA_DESCRIPTOR = 0x08074b50;
const MAX32 = 0xffffffff;
const STORED = 0;
const DEFLATED = 8;
/** Bytes inflated at a time while checking (nothing is kept, so larger is faster). */
const CHECK_CHUNK = 64 * 1024;
/**
 * Bytes handed to the reader at a time: zlib's own default, as the reader got them when it
 * inflated itself. With 64 KB the strings it keeps held on to about 130 MB more of a 100,000-row
 * workbook.
 */
const READ_CHUNK = 16 * 1024;

export const SHARED_STRINGS_PART = "xl/sharedStrings.xml";
const WORKSHEET_PART = /^xl\/worksheets\/sheet\d+\.xml$/;

/** A part that passed every check: where its data is, and its size and checksum as measured. */
export type CheckedPart = {
  name: string;
  method: number;
  dataStart: number;
  compressedSize: number;
  size: number;
  crc32: number;
};

/** A part's data as the reader gets it: stored bytes, or stored bytes made here (an empty shared-strings part). */
export type PartSource = CheckedPart | { name: string; text: string };

function kindOf(name: string): XmlPartKind {
  if (name === SHARED_STRINGS_PART) return "sharedStrings";
  return WORKSHEET_PART.test(name) ? "worksheet" : "other";
}

/** The most a part may unzip to on its own (the total cap applies as well). */
function partCap(kind: XmlPartKind): number {
  switch (kind) {
    case "worksheet":
      return MAX_UNZIPPED_BYTES;
    case "sharedStrings":
      return MAX_SHARED_STRINGS_BYTES;
    case "other":
      return MAX_MODEL_PART_BYTES;
    default: {
      const never: never = kind;
      return never;
    }
  }
}

function mb(bytes: number): string {
  return `${Math.round(bytes / 1048576)} MB`;
}

const SAVE_AGAIN = "Open it in Excel, save it again as Excel Workbook (.xlsx), and upload that, or upload the tokens as CSV.";

/** A workbook that is damaged or was made to mislead a reader. */
function damaged(what: string): FileReadError {
  return new FileReadError("unreadable_file", `The workbook cannot be read: ${what}. ${SAVE_AGAIN}`);
}

/** A part in words, after "its" or "the workbook's". */
function partLabel(name: string): string {
  return name === SHARED_STRINGS_PART ? "shared-strings part (the text of its cells)" : `part ${name}`;
}

const SMALLER = "Remove other sheets and formatting, or upload the tokens as CSV.";

/** The workbook over the total cap; `bytes` as declared, or null when counted while inflating. */
function workbookTooLarge(bytes: number | null): FileReadError {
  const size = bytes === null ? "more than" : `${mb(bytes)}, more than`;
  return new FileReadError("file_too_large", `The workbook unzips to ${size} the ${mb(MAX_UNZIPPED_BYTES)} Ferry reads. ${SMALLER}`);
}

/** A part over its own cap; `bytes` as declared, or null when counted while inflating. */
function partTooLarge(name: string, bytes: number | null): FileReadError {
  const cap = partCap(kindOf(name));
  const size = bytes === null ? "more than" : `${mb(bytes)}, more than`;
  return new FileReadError("file_too_large", `The workbook's ${partLabel(name)} unzips to ${size} the ${mb(cap)} Ferry reads. ${SMALLER}`);
}

/** Refuses, before anything is inflated, a workbook whose declared sizes are already over a cap. */
export function checkDeclaredSizes(entries: readonly ZipEntry[]): void {
  let total = 0;
  for (const entry of entries) {
    total += entry.uncompressedSize;
    if (kindOf(entry.name) !== "worksheet" && entry.uncompressedSize > partCap(kindOf(entry.name))) throw partTooLarge(entry.name, entry.uncompressedSize);
  }
  if (total > MAX_UNZIPPED_BYTES) throw workbookTooLarge(total);
}

/** The message for an XML limit a part breaks. */
export function breachError(name: string, breach: XmlBreach): FileReadError {
  switch (breach.limit) {
    case "cell_text": {
      const advice = "No value of a token file is anywhere near that long (a token has at most a few thousand characters). Check the cell, correct it, and upload again.";
      if (breach.cell) {
        const line = Number(/\d+$/.exec(breach.cell)?.[0]);
        return new FileReadError("value_too_long", `Cell ${breach.cell} holds more than 64 KB of text, and reading stopped there. ${advice}`, line, breach.cell);
      }
      if (kindOf(name) === "sharedStrings") {
        return new FileReadError("value_too_long", `One of the workbook's cells holds more than 64 KB of text (found in its shared strings), and reading stopped there. ${advice}`);
      }
      return damaged(`its ${partLabel(name)} holds more than 64 KB of text outside its cells, which no spreadsheet program writes`);
    }
    case "row_text":
      return new FileReadError(
        "value_too_long",
        `${breach.row ? `Row ${breach.row}` : "A row"} holds more than 1 MB of text, and reading stopped there. A token file's row holds one company: its name, tokens and a few short values. Check the row, correct it, and upload again.`,
        breach.row ?? undefined,
      );
    case "row_elements":
      return damaged(`${breach.row ? `row ${breach.row}` : "a row"} of the sheet holds more than 100,000 XML elements, far more than a spreadsheet program writes for one row`);
    case "cells":
      return new FileReadError(
        "file_too_large",
        `The sheet holds more than ${MAX_SHEET_CELLS.toLocaleString("en")} cells${breach.row ? ` (reading stopped on row ${breach.row})` : ""}, more than Ferry reads: a token file has one row per company and a few columns. Remove the columns and rows that are not the template's, or upload the tokens as CSV.`,
        breach.row ?? undefined,
      );
    case "elements":
      return new FileReadError(
        "file_too_large",
        `The workbook's ${partLabel(name)} holds more XML elements than Ferry reads (texts, formats and the like). ${SMALLER}`,
      );
    case "tag":
      return damaged(`its ${partLabel(name)} holds an XML tag longer than 64 KB, which no spreadsheet program writes`);
    case "depth":
      return damaged(`its ${partLabel(name)} nests XML elements more than 64 deep, which no spreadsheet program writes`);
    case "column_range":
      return damaged(`its ${partLabel(name)} sets columns beyond XFD, the last column a spreadsheet has`);
    default: {
      const never: never = breach;
      return never;
    }
  }
}

/** The local header's view of an entry: where its data starts and the sizes it declares there. */
function localHeader(bytes: Buffer, entry: ZipEntry, end: number) {
  const at = entry.localOffset;
  if (at + 30 > end || bytes.readUInt32LE(at) !== LOCAL_HEADER) throw damaged(`the ZIP entry of its ${partLabel(entry.name)} is missing or broken`);
  const flags = bytes.readUInt16LE(at + 6);
  const method = bytes.readUInt16LE(at + 8);
  const crc = bytes.readUInt32LE(at + 14);
  let compressed = bytes.readUInt32LE(at + 18);
  let size = bytes.readUInt32LE(at + 22);
  const nameLength = bytes.readUInt16LE(at + 26);
  const extraLength = bytes.readUInt16LE(at + 28);
  const dataStart = at + 30 + nameLength + extraLength;
  if (dataStart > end) throw damaged(`the ZIP entry of its ${partLabel(entry.name)} is missing or broken`);
  if (bytes.toString("utf8", at + 30, at + 30 + nameLength) !== entry.name) throw damaged(`the ZIP entry of its ${partLabel(entry.name)} bears another name than its directory says`);
  if (size === MAX32 || compressed === MAX32) {
    // ZIP64: the sizes are in the extra field, uncompressed size first.
    for (let p = at + 30 + nameLength; p + 4 <= dataStart; ) {
      const id = bytes.readUInt16LE(p);
      const length = bytes.readUInt16LE(p + 2);
      if (id === 0x0001) {
        let q = p + 4;
        if (size === MAX32 && q + 8 <= p + 4 + length) {
          size = readUint64(bytes, q);
          q += 8;
        }
        if (compressed === MAX32 && q + 8 <= p + 4 + length) compressed = readUint64(bytes, q);
        break;
      }
      p += 4 + length;
    }
  }
  return { flags, method, crc, size, compressed, dataStart };
}

/**
 * The uncompressed sizes a data descriptor after the data may give: its fields are 4 bytes wide, or
 * 8 in a ZIP64 entry, and writers disagree on when an entry is one, so both readings are offered.
 */
function descriptorSizes(bytes: Buffer, at: number, end: number): number[] {
  const p = at + 4 <= end && bytes.readUInt32LE(at) === DATA_DESCRIPTOR ? at + 4 : at;
  const sizes: number[] = [];
  if (p + 12 <= end) sizes.push(bytes.readUInt32LE(p + 8));
  if (p + 20 <= end) sizes.push(readUint64(bytes, p + 12));
  return sizes;
}

/** A part's data, inflated (or as stored) chunk by chunk; nothing is kept. */
async function* partBytes(bytes: Buffer, part: { method: number; dataStart: number; compressedSize: number }, chunkSize: number): AsyncGenerator<Buffer> {
  const data = bytes.subarray(part.dataStart, part.dataStart + part.compressedSize);
  if (part.method === STORED) {
    for (let at = 0; at < data.length; at += chunkSize) yield data.subarray(at, at + chunkSize);
    return;
  }
  const inflate = zlib.createInflateRaw({ chunkSize });
  inflate.end(data);
  try {
    for await (const chunk of inflate as AsyncIterable<Buffer>) yield chunk;
  } finally {
    inflate.destroy();
  }
}

/** The parts checked, or why the workbook is refused; `inflated` is every byte inflated either way. */
export type PartsCheck = { ok: true; parts: CheckedPart[]; inflated: number } | { ok: false; error: FileReadError; inflated: number };

/** Inflates and checks each named part (see the module note), stopping at the first that fails. */
export async function checkParts(bytes: Buffer, zip: ZipDirectory, names: readonly string[]): Promise<PartsCheck> {
  const state = { inflated: 0 };
  try {
    return { ok: true, parts: await checkEach(bytes, zip, names, state), inflated: state.inflated };
  } catch (error) {
    if (error instanceof FileReadError) return { ok: false, error, inflated: state.inflated };
    throw error;
  }
}

async function checkEach(bytes: Buffer, zip: ZipDirectory, names: readonly string[], state: { inflated: number }): Promise<CheckedPart[]> {
  const entries = names.map((name) => {
    const found = zip.entries.filter((e) => e.name === name);
    // Two entries of one name: a reader could take either, so the one checked might not be the one read.
    if (found.length > 1) throw damaged(`its ZIP holds ${name} twice`);
    return found[0];
  });
  const present = entries.filter((e): e is ZipEntry => e !== undefined);
  checkDeclaredSizes(present);
  const parts: CheckedPart[] = [];
  for (const entry of present) {
    const local = localHeader(bytes, entry, zip.directoryOffset);
    if (entry.method !== STORED && entry.method !== DEFLATED) throw damaged(`its ${partLabel(entry.name)} is compressed in a way Excel does not use`);
    if (local.method !== entry.method) throw damaged(`the ZIP headers of its ${partLabel(entry.name)} disagree on how it is compressed`);
    const dataEnd = local.dataStart + entry.compressedSize;
    if (dataEnd > zip.directoryOffset) throw damaged(`its ${partLabel(entry.name)} runs past the end of its ZIP entries`);
    if (entry.method === STORED && entry.compressedSize !== entry.uncompressedSize) {
      throw damaged(`its ${partLabel(entry.name)} is stored uncompressed but its ZIP directory gives two different sizes`);
    }
    const kind = kindOf(entry.name);
    const cap = Math.min(partCap(kind), entry.uncompressedSize);
    const bounds = new XmlBounds(kind);
    let size = 0;
    let crc = 0;
    try {
      for await (const chunk of partBytes(bytes, { method: entry.method, dataStart: local.dataStart, compressedSize: entry.compressedSize }, CHECK_CHUNK)) {
        size += chunk.length;
        state.inflated += chunk.length;
        if (state.inflated > MAX_UNZIPPED_BYTES) throw workbookTooLarge(null);
        if (size > cap) {
          // More than declared: a lie about the size (the declared sizes were already within the caps).
          if (size > entry.uncompressedSize) throw damaged(`its ${partLabel(entry.name)} unzips to more than the ${entry.uncompressedSize.toLocaleString("en")} bytes its ZIP directory declares`);
          throw partTooLarge(entry.name, null);
        }
        crc = zlib.crc32(chunk, crc);
        const breach = bounds.write(chunk);
        if (breach) throw breachError(entry.name, breach);
      }
    } catch (error) {
      if (error instanceof FileReadError) throw error;
      throw damaged(`its ${partLabel(entry.name)} cannot be unzipped`);
    }
    const declared = [entry.uncompressedSize];
    if (!(local.flags & 0x08) || local.size) declared.push(local.size);
    if (local.flags & 0x08) {
      const described = descriptorSizes(bytes, dataEnd, zip.directoryOffset);
      if (!described.length) throw damaged(`the ZIP entry of its ${partLabel(entry.name)} lacks the sizes that should follow its data`);
      declared.push(described.includes(size) ? size : described[0]!);
    }
    if (declared.some((d) => d !== size)) {
      throw damaged(`its ${partLabel(entry.name)} unzips to ${size.toLocaleString("en")} bytes, but its ZIP headers declare ${[...new Set(declared)].map((d) => d.toLocaleString("en")).join(" and ")}`);
    }
    if (crc !== entry.crc32 || (!(local.flags & 0x08) && local.crc !== entry.crc32)) throw damaged(`its ${partLabel(entry.name)} does not match its checksum`);
    parts.push({ name: entry.name, method: entry.method, dataStart: local.dataStart, compressedSize: entry.compressedSize, size, crc32: crc });
  }
  return parts;
}

/** A local header for a stored entry of `size` bytes. */
function storedHeader(name: string, size: number, crc: number): Buffer {
  const fileName = Buffer.from(name, "utf8");
  const header = Buffer.alloc(30);
  header.writeUInt32LE(LOCAL_HEADER, 0);
  header.writeUInt16LE(20, 4);
  // Bit 11: the name is UTF-8.
  header.writeUInt16LE(0x0800, 6);
  header.writeUInt32LE(crc, 14);
  header.writeUInt32LE(size, 18);
  header.writeUInt32LE(size, 22);
  header.writeUInt16LE(fileName.length, 26);
  return Buffer.concat([header, fileName]);
}

/** An empty end-of-central-directory record: the reader stops there. */
function endOfDirectory(): Buffer {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  return end;
}

/**
 * The checked parts, in the given order, as one ZIP stream of stored entries (see the module
 * note). Inflating a checked part again gives the same bytes; should it not, the stream ends
 * there, and the reader refuses the truncated ZIP rather than reading past what was checked.
 */
export function checkedPartsZip(bytes: Buffer, parts: readonly PartSource[]): Readable {
  async function* zipStream(): AsyncGenerator<Buffer> {
    for (const part of parts) {
      if ("text" in part) {
        const data = Buffer.from(part.text, "utf8");
        yield storedHeader(part.name, data.length, zlib.crc32(data));
        yield data;
        continue;
      }
      yield storedHeader(part.name, part.size, part.crc32);
      let size = 0;
      try {
        for await (const chunk of partBytes(bytes, part, READ_CHUNK)) {
          size += chunk.length;
          if (size > part.size) return;
          yield chunk;
        }
      } catch {
        return;
      }
      if (size !== part.size) return;
    }
    yield endOfDirectory();
  }
  return Readable.from(zipStream(), { objectMode: false });
}
