/**
 * Company names and the service. The service keeps only letters A–Z, digits, spaces and a few
 * signs in a company's name and strips every other character (reference §3: `Company (Codat[1])`
 * → `Company Codat1`), so "Société Générale Café" would be stored as "Socit Gnrale Caf" and a name
 * in another script as nothing at all.
 *
 * Ferry therefore sends the name the service will keep, made by one rule (`companyNameOnService`):
 * accents folded to their base letter ("é" → "e") and the letters that have no accent to drop
 * spelled out in Latin letters ("ß" → "ss", "Ø" → "O"), then what the service would strip removed
 * and spaces collapsed. A name with nothing left (another script, emoji only) gets a stand-in
 * that says where the company is in the file: "Company <externalRef>", or "Company line 7"
 * ("row 7" in a workbook) without one. The file's own name is kept on the migration item and in
 * the company's description on the service, so nothing of it is lost.
 *
 * Hand-written rather than a transliteration library: those spell out whole scripts (Cyrillic,
 * Greek, kanji read as Chinese), which would send the service names nobody chose and the
 * customer cannot check; here only accents and a short table of Latin letters are folded, and
 * anything else becomes the stand-in, with the original beside it.
 *
 * `serviceCompanyName` is the service's own stripping, which the sandbox applies as the real
 * service does.
 */

/** Characters a company name keeps; every other character is stripped. */
export const COMPANY_NAME_FORBIDDEN = /[^A-Za-z0-9\s\-',&@.?!]/g;

/** The name the service stores for `name` (empty when nothing allowed is left). */
export function serviceCompanyName(name: string): string {
  return name.replace(COMPANY_NAME_FORBIDDEN, "").replace(/\s+/g, " ").trim();
}

/**
 * Latin letters and signs that Unicode decomposition leaves as they are (they carry no accent to
 * drop), spelled the way the languages that use them spell them in plain Latin letters. Typographic
 * apostrophes and dashes become the ones the service keeps.
 */
const SPELLED: Readonly<Record<string, string>> = {
  ß: "ss",
  ẞ: "SS",
  æ: "ae",
  Æ: "AE",
  œ: "oe",
  Œ: "OE",
  ø: "o",
  Ø: "O",
  ł: "l",
  Ł: "L",
  đ: "d",
  Đ: "D",
  ð: "d",
  Ð: "D",
  þ: "th",
  Þ: "Th",
  ħ: "h",
  Ħ: "H",
  ı: "i",
  ŋ: "ng",
  Ŋ: "NG",
  ŧ: "t",
  Ŧ: "T",
  ĸ: "k",
  "\u2018": "'",
  "\u2019": "'",
  "\u201A": "'",
  "\u2032": "'",
  "\u02BC": "'",
  "\u2010": "-",
  "\u2011": "-",
  "\u2012": "-",
  "\u2013": "-",
  "\u2014": "-",
  "\u2212": "-",
};
const SPELLED_PATTERN = new RegExp(`[${Object.keys(SPELLED).join("")}]`, "gu");

/**
 * `text` with accents folded: compatibility decomposition (NFKD: "é" → "e" + a combining accent,
 * "ﬁ" → "fi", full-width "Ａ" → "A"), the combining marks removed, then the letters of SPELLED.
 * Letters of other scripts stay as they are (the service then strips them).
 */
export function foldAccents(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(SPELLED_PATTERN, (c) => SPELLED[c] ?? c);
}

/** Where a company is in its token file, for a stand-in name: "line 7" (CSV), "row 7" (workbook). */
export function fileWhere(source: { line: number; workbook: boolean }): string {
  return `${source.workbook ? "row" : "line"} ${source.line}`;
}

/** The same from a stored item's `sourceRef` ("line 7", "cell A7" → "row 7"). */
export function fileWhereOfSourceRef(sourceRef: string): string {
  const cell = /^cell [A-Z]+(\d+)$/.exec(sourceRef);
  return cell ? `row ${cell[1]}` : sourceRef;
}

/** The name Ferry sends the service for a company, and whether it had to stand in for the file's. */
export type NameOnService = { name: string; standIn: boolean };

/**
 * The name the service will keep for a company of the token file (see the module comment):
 * the file's name folded and stripped, or a stand-in from its externalRef (folded and stripped
 * too) or its place in the file when nothing of the name is left.
 */
export function companyNameOnService(company: { name: string; externalRef: string | null; where: string }): NameOnService {
  const kept = serviceCompanyName(foldAccents(company.name));
  if (kept) return { name: kept, standIn: false };
  const ref = company.externalRef ? serviceCompanyName(foldAccents(company.externalRef)) : "";
  return { name: `Company ${ref || company.where}`, standIn: true };
}

/**
 * The company's description on the service: that Ferry migrated it for which engagement, and,
 * when the service's name differs from the file's, the file's name as it was, so whoever finds
 * the company on the service can tell which row it came from.
 */
export function companyDescription(params: { reference: string; fileName: string; serviceName: string }): string {
  const migrated = `Migrated by Ferry (${params.reference}).`;
  return params.fileName === params.serviceName ? migrated : `${migrated} Name in the token file: ${params.fileName}`;
}

/**
 * The name a stored company has on the service: the one recorded at intake, or for items stored
 * before it was recorded, the same rule's from the file's name and where the row was.
 */
export function serviceNameOf(item: { name: string; serviceName: string | null; externalRef: string | null; sourceRef: string }): string {
  return item.serviceName ?? companyNameOnService({ name: item.name, externalRef: item.externalRef, where: fileWhereOfSourceRef(item.sourceRef) }).name;
}
