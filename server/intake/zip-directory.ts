/**
 * Reads a ZIP file's central directory (names, sizes, where each entry starts) without unzipping
 * anything. The intake needs it before a workbook is parsed: to tell an XLSX from other ZIP-based
 * files, to refuse a workbook that would unzip to far more than it weighs, and to hand exceljs's
 * streaming reader the parts it needs in the order it needs them (see read-xlsx.ts).
 * Format: PKWARE APPNOTE 4.3.16 (end of central directory), 4.3.12 (file header), 4.5.3 (ZIP64).
 */

export type ZipEntry = {
  name: string;
  /** Offset of the entry's local file header. */
  localOffset: number;
  compressedSize: number;
  uncompressedSize: number;
  /** 0 stored, 8 deflated (the only two an XLSX uses). */
  method: number;
  /** General-purpose flags; bit 3 says the sizes follow the data in a data descriptor. */
  flags: number;
  crc32: number;
  /** The sizes were given in a ZIP64 extra field. */
  zip64: boolean;
};

export type ZipDirectory = {
  entries: ZipEntry[];
  /** Where the central directory starts (every local entry lies before it). */
  directoryOffset: number;
};

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL_HEADER = 0x02014b50;
const MAX16 = 0xffff;
const MAX32 = 0xffffffff;

export function readUint64(b: Buffer, at: number): number {
  const value = b.readBigUInt64LE(at);
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}

function findEndOfDirectory(b: Buffer): number {
  // The record is 22 bytes plus a comment of up to 65,535 bytes, at the very end of the file.
  const lowest = Math.max(0, b.length - 22 - MAX16);
  for (let at = b.length - 22; at >= lowest; at--) {
    if (b.readUInt32LE(at) === EOCD) return at;
  }
  return -1;
}

/** The ZIP64 end record's entry count and directory offset, when the plain record defers to it. */
function readZip64End(b: Buffer, eocd: number): { count: number; offset: number } | null {
  const locator = eocd - 20;
  if (locator < 0 || b.readUInt32LE(locator) !== ZIP64_LOCATOR) return null;
  const at = readUint64(b, locator + 8);
  if (at + 56 > b.length || b.readUInt32LE(at) !== ZIP64_EOCD) return null;
  return { count: readUint64(b, at + 32), offset: readUint64(b, at + 48) };
}

/** Sizes and offset a ZIP64 extra field (of a central or local header) holds for the header fields that were saturated. */
function applyZip64Extra(b: Buffer, from: number, to: number, entry: ZipEntry, saturated: { u: boolean; c: boolean; o: boolean }): void {
  for (let at = from; at + 4 <= to; ) {
    const id = b.readUInt16LE(at);
    const size = b.readUInt16LE(at + 2);
    if (id === 0x0001) {
      let p = at + 4;
      // The values appear in this order, each only when its header field is saturated.
      if (saturated.u && p + 8 <= to) {
        entry.uncompressedSize = readUint64(b, p);
        p += 8;
      }
      if (saturated.c && p + 8 <= to) {
        entry.compressedSize = readUint64(b, p);
        p += 8;
      }
      if (saturated.o && p + 8 <= to) entry.localOffset = readUint64(b, p);
      return;
    }
    at += 4 + size;
  }
}

/** The central directory of a ZIP held in memory, or null when it is missing or damaged. */
export function readZipDirectory(b: Buffer): ZipDirectory | null {
  if (b.length < 22) return null;
  const eocd = findEndOfDirectory(b);
  if (eocd < 0) return null;
  let count = b.readUInt16LE(eocd + 10);
  let offset = b.readUInt32LE(eocd + 16);
  if (count === MAX16 || offset === MAX32) {
    const zip64 = readZip64End(b, eocd);
    if (!zip64) return null;
    count = zip64.count;
    offset = zip64.offset;
  }
  const entries: ZipEntry[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > b.length || b.readUInt32LE(at) !== CENTRAL_HEADER) return null;
    const nameLength = b.readUInt16LE(at + 28);
    const extraLength = b.readUInt16LE(at + 30);
    const commentLength = b.readUInt16LE(at + 32);
    const nameEnd = at + 46 + nameLength;
    if (nameEnd + extraLength > b.length) return null;
    const entry: ZipEntry = {
      name: b.toString("utf8", at + 46, nameEnd),
      compressedSize: b.readUInt32LE(at + 20),
      uncompressedSize: b.readUInt32LE(at + 24),
      localOffset: b.readUInt32LE(at + 42),
      method: b.readUInt16LE(at + 10),
      flags: b.readUInt16LE(at + 8),
      crc32: b.readUInt32LE(at + 16),
      zip64: false,
    };
    const saturated = { u: entry.uncompressedSize === MAX32, c: entry.compressedSize === MAX32, o: entry.localOffset === MAX32 };
    if (saturated.u || saturated.c || saturated.o) {
      applyZip64Extra(b, nameEnd, nameEnd + extraLength, entry, saturated);
      entry.zip64 = true;
    }
    if (entry.localOffset >= offset) return null;
    entries.push(entry);
    at = nameEnd + extraLength + commentLength;
  }
  return { entries, directoryOffset: offset };
}
