/**
 * The intake's HTTP routes through their real handlers with real Request objects (multipart bodies
 * built by the platform's own FormData) on a real temporary database: the same protections as the
 * tRPC route, every bad file the issue names refused with one clear message and nothing stored,
 * a good file stored whole, the templates and the calendar invite.
 */
import { count, eq } from "drizzle-orm";
import ExcelJS from "exceljs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { auditEvents, engagements, intakeSubmissions, mailOutbox, migrationItems } from "@/db/schema";
import { createEngagement } from "@/server/engagements/create-engagement";
import { getEngagement } from "@/server/engagements/get-engagement";
import { MAX_DATA_ROWS, MAX_FILE_BYTES } from "@/server/intake";
import { HOSTILE_FILES } from "@/server/testing/hostile-files";
import { csvBytes, headerFor, rowFor, xlsxBytes } from "@/server/testing/token-files";
import { getManagedPlatform, MANAGED_PLATFORMS } from "@/server/platforms";
import type { Actor } from "@/core/accounts/actor";
import { createTestDatabase, seedPeople, type People, type TestDatabase, TEST_NOTIFY } from "@/server/testing/test-db";
import { agreeWindow, completeIntake } from "@/server/testing/engagement-flows";
import { handleInviteRequest, handleTemplateRequest, handleTokenFileRequest, internalErrorLog, TOKEN_FILE_BODY_LIMIT } from "./intake-http";
import { testConfig } from "../testing/caller";

const APP = "http://ferry.test";
const qbo = getManagedPlatform("qhyg")!;
let t: TestDatabase;
let p: People;
let engagementId: string;

beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
  engagementId = (await createEngagement(t.database, TEST_NOTIFY, p.support, { organizationId: p.orgA, platformKey: "qhyg" })).id;
});
afterEach(() => t.close());

const deps = (actor: Actor | null) => ({
  appOrigin: APP,
  createContext: async () => ({ database: t.database, actor, clientAddress: "127.0.0.1", config: testConfig() }),
});

const FORM = { clientId: "app-client-1", clientSecret: "cs_live_9f8e7d6c5b4a3210", contacts: [{ name: "Carol", email: "carol@org-a.test" }] };

function upload(file: { name: string; bytes: Uint8Array } | null, form: Partial<Record<keyof typeof FORM, unknown>> = FORM, headers: Record<string, string> = {}) {
  const body = new FormData();
  if (file) body.set("file", new File([Buffer.from(file.bytes)], file.name));
  for (const [k, v] of Object.entries(form)) body.set(k, typeof v === "string" ? v : JSON.stringify(v));
  return { body, headers };
}

function post(mode: "check" | "submit", actor: Actor | null, parts: { body: BodyInit; headers?: Record<string, string> }, id = engagementId) {
  const url = `${APP}/api/engagements/${id}/token-file${mode === "check" ? "/check" : ""}`;
  return handleTokenFileRequest(new Request(url, { method: "POST", body: parts.body, headers: parts.headers }), { engagementId: id, mode }, deps(actor));
}

const goodCsv = (n = 3) => ({ name: "companies.csv", bytes: csvBytes([headerFor(qbo), ...Array.from({ length: n }, (_, i) => rowFor(qbo, i))]) });

/** What a refused request must leave unchanged. */
async function stored() {
  const n = async (table: typeof intakeSubmissions | typeof migrationItems | typeof auditEvents | typeof mailOutbox) => (await t.db.select({ n: count() }).from(table))[0]!.n;
  return { submissions: await n(intakeSubmissions), items: await n(migrationItems), audit: await n(auditEvents), mail: await n(mailOutbox) };
}

describe("the token file route's protections", () => {
  it("refuses a post from another site (403), a signed-out request (401), and staff submitting (403); nothing stored", async () => {
    const before = await stored();
    expect((await post("submit", p.customerA, upload(goodCsv(), FORM, { origin: "http://evil.test" }))).status).toBe(403);
    expect((await post("submit", p.customerA, upload(goodCsv(), FORM, { "sec-fetch-site": "cross-site" }))).status).toBe(403);
    const anonymous = await post("submit", null, upload(goodCsv()));
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { code: "UNAUTHENTICATED", message: "Sign in to continue." } });
    const staff = await post("submit", p.support, upload(goodCsv()));
    expect(staff.status).toBe(403);
    expect(await staff.json()).toMatchObject({ error: { message: expect.stringContaining("Customers submit") } });
    expect(await stored()).toEqual(before);
  });

  it("answers another organisation's engagement exactly like an unknown id, for a check and a submission", async () => {
    const before = await stored();
    for (const mode of ["check", "submit"] as const) {
      const unknown = await post(mode, p.customerB, upload(goodCsv()), "no-such-engagement");
      const other = await post(mode, p.customerB, upload(goodCsv()));
      expect([unknown.status, other.status]).toEqual([404, 404]);
      expect(await other.json()).toEqual(await unknown.json());
    }
    expect(await stored()).toEqual(before);
  });

  it("refuses a body over the cap before reading it whole: declared too large, or streamed without a length", async () => {
    const before = await stored();
    const declared = await post("submit", p.customerA, { body: "x", headers: { "content-type": "multipart/form-data; boundary=x", "content-length": String(TOKEN_FILE_BODY_LIMIT + 1) } });
    expect(declared.status).toBe(400);
    expect(await declared.json()).toMatchObject({ error: { message: expect.stringMatching(/larger than 20 MB, the limit for a token file; it was not read/), fields: { file: expect.any(String) } } });

    let pulled = 0;
    const chunk = new Uint8Array(1024 * 1024);
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += chunk.length;
        if (pulled > 100 * 1024 * 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const streamed = await handleTokenFileRequest(
      new Request(`${APP}/api/engagements/${engagementId}/token-file`, { method: "POST", body: stream, headers: { "content-type": "multipart/form-data; boundary=x" }, duplex: "half" } as RequestInit),
      { engagementId, mode: "submit" },
      deps(p.customerA),
    );
    expect(streamed.status).toBe(400);
    expect(pulled).toBeLessThan(TOKEN_FILE_BODY_LIMIT + 3 * 1024 * 1024);
    expect(await stored()).toEqual(before);
  });

  it("refuses a body that is not a form upload, and a form without a file", async () => {
    const json = await post("check", p.customerA, { body: "{}", headers: { "content-type": "application/json" } });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: { message: expect.stringContaining("form upload") } });
    const noFile = await post("check", p.customerA, upload(null));
    expect(await noFile.json()).toMatchObject({ error: { fields: { file: "Choose a token file to upload." } } });
  });
});

describe("checking a file", () => {
  it("answers the problems by line and a masked preview, and stores nothing", async () => {
    const rows = [headerFor(qbo), rowFor(qbo, 1), rowFor(qbo, 2).map((v, i) => (i === 4 ? "12ab" : v)), rowFor(qbo, 1)];
    const before = await stored();
    const res = await post("check", p.customerA, upload({ name: "bad.csv", bytes: csvBytes(rows) }));
    expect(res.status).toBe(200);
    const { check } = (await res.json()) as { check: { ok: boolean; problems: { kind: string; line: number }[]; preview: { rows: { sourceRef: string; values: Record<string, string> }[] } } };
    expect(check.ok).toBe(false);
    expect(check.problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "malformed_value", line: 3, column: "realmId" }),
        expect.objectContaining({ kind: "duplicate_credential", line: 4 }),
      ]),
    );
    expect(check.preview.rows[0]).toMatchObject({ sourceRef: "line 2", values: { accessToken: expect.stringMatching(/^••••/) } });
    expect(JSON.stringify(check)).not.toContain(rowFor(qbo, 1)[1]);
    expect(await stored()).toEqual(before);
  });
});

describe("submitting a file", () => {
  it("stores a good file whole: the submission, one item per row, step 1 started, support mailed", async () => {
    const res = await post("submit", p.customerA, upload(goodCsv(4)));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { submissionId: string; companies: number };
    expect(body.companies).toBe(4);
    expect((await t.db.select({ n: count() }).from(migrationItems).where(eq(migrationItems.submissionId, body.submissionId)))[0]!.n).toBe(4);
    const eng = await getEngagement(t.database, p.support, engagementId);
    expect(eng.steps[0]!.state).toBe("in_progress");
    expect(eng.waiting.party).toBe("support");
    const mail = await t.db.select().from(mailOutbox).where(eq(mailOutbox.to, "support@test")).orderBy(mailOutbox.createdAt);
    expect(mail.at(-1)).toMatchObject({ subject: expect.stringMatching(/Details and token file to review$/), text: expect.stringContaining("4 companies") });
  });

  it("refuses form errors field by field, before the file is parsed", async () => {
    const before = await stored();
    const res = await post("submit", p.customerA, upload(goodCsv(), { clientId: "has space", clientSecret: "", contacts: [{ name: "", email: "nope" }] }));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: { fields: { clientId: "The client id has no spaces.", clientSecret: expect.stringContaining("client secret"), "contacts.0.name": expect.any(String), "contacts.0.email": "Give a valid email address." } },
    });
    expect(await stored()).toEqual(before);
  });

  const header = headerFor(qbo);
  const refusals: { name: string; file: () => Promise<{ name: string; bytes: Uint8Array }> | { name: string; bytes: Uint8Array }; kind: string; message: RegExp }[] = [
    { name: "a file over 20 MB", file: () => ({ name: "big.csv", bytes: Buffer.alloc(MAX_FILE_BYTES + 10, 0x61) }), kind: "file_too_large", message: /limit is 20\.0 MB/ },
    {
      name: "a file over 100,000 rows",
      // Each row as wide as the header: csv-parse builds an error object for every row whose width
      // differs from the first one's (relaxed, it is dropped), a third of this test's time otherwise.
      file: () => ({ name: "many.csv", bytes: Buffer.from([header.join(","), ...Array.from({ length: MAX_DATA_ROWS + 1 }, (_, i) => `C${i}${",".repeat(header.length - 1)}`)].join("\n")) }),
      kind: "too_many_rows",
      message: /more than 100,000 companies/,
    },
    { name: "a PDF named .csv (type by content)", file: () => ({ name: "tokens.csv", bytes: Buffer.from("%PDF-1.7\n1 0 obj\n") }), kind: "unsupported_file_type", message: /PDF/ },
    { name: "an empty file", file: () => ({ name: "empty.csv", bytes: Buffer.alloc(0) }), kind: "file_empty", message: /The file is empty/ },
    { name: "a file with only a header", file: () => ({ name: "header.csv", bytes: csvBytes([header]) }), kind: "header_only", message: /header row but no companies/ },
    {
      name: "a CSV with another platform's columns",
      file: () => {
        const shopify = getManagedPlatform("fztf")!;
        return { name: "shopify.csv", bytes: csvBytes([headerFor(shopify), rowFor(shopify, 1)]) };
      },
      kind: "wrong_platform",
      message: /Shopify/,
    },
    { name: "a workbook with only a header", file: async () => ({ name: "header.xlsx", bytes: await xlsxBytes([header]) }), kind: "header_only", message: /header row but no companies/ },
  ];

  it.each(refusals)("refuses $name with one clear message, storing nothing", async ({ file, kind, message }) => {
    const before = await stored();
    const res = await post("submit", p.customerA, upload(await file()));
    expect(res.status).toBe(422);
    const { check } = (await res.json()) as { check: { ok: boolean; problems: { kind: string; message: string }[] } };
    expect(check.ok).toBe(false);
    expect(check.problems.filter((x) => x.kind !== "extension_mismatch")).toEqual([expect.objectContaining({ kind, message: expect.stringMatching(message) })]);
    expect(await stored()).toEqual(before);
  });

  it("keeps non-ASCII company names exactly as written, and says which name the service will store", async () => {
    const rows = [header, ["Zoë's Café & Bar", ...rowFor(qbo, 1).slice(1)], ["Øresund Trading ApS", ...rowFor(qbo, 2).slice(1)], ["株式会社テスト Ltd", ...rowFor(qbo, 3).slice(1)]];
    const res = await post("submit", p.customerA, upload({ name: "intl.csv", bytes: csvBytes(rows, { bom: true, delimiter: ";", eol: "\r\n" }) }));
    expect(res.status).toBe(200);
    const names = await t.db.select({ name: migrationItems.name, serviceName: migrationItems.serviceName }).from(migrationItems).orderBy(migrationItems.position);
    expect(names).toEqual([
      { name: "Zoë's Café & Bar", serviceName: "Zoe's Cafe & Bar" },
      { name: "Øresund Trading ApS", serviceName: "Oresund Trading ApS" },
      { name: "株式会社テスト Ltd", serviceName: "Ltd" },
    ]);
    const { check } = (await res.json()) as { check: { problems: { kind: string; becomes?: string; line: number }[] } };
    expect(check.problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "company_name_altered", line: 2, becomes: "Zoe's Cafe & Bar" }),
        expect.objectContaining({ kind: "company_name_altered", line: 3, becomes: "Oresund Trading ApS" }),
        expect.objectContaining({ kind: "company_name_altered", line: 4, becomes: "Ltd" }),
      ]),
    );
  });

  it("accepts a name in another script, with a warning and a stand-in named after its externalRef", async () => {
    const other = rowFor(qbo, 2);
    other[0] = "株式会社テスト";
    other[header.indexOf("externalRef")] = "JP-001";
    const res = await post("submit", p.customerA, upload({ name: "jp.csv", bytes: csvBytes([header, rowFor(qbo, 1), other]) }));
    expect(res.status).toBe(200);
    const { check } = (await res.json()) as { check: { ok: boolean; problems: { kind: string; severity: string; becomes?: string; line: number }[] } };
    expect(check.ok).toBe(true);
    expect(check.problems).toEqual([expect.objectContaining({ kind: "company_name_replaced", severity: "warning", line: 3, becomes: "Company JP-001" })]);
    const stored = await t.db.select({ name: migrationItems.name, serviceName: migrationItems.serviceName }).from(migrationItems).orderBy(migrationItems.position);
    expect(stored[1]).toEqual({ name: "株式会社テスト", serviceName: "Company JP-001" });
  });
});

describe("hostile files", () => {
  const hostile = HOSTILE_FILES.filter((f) => ["lying-sheet", "lying-descriptor", "honest-sheet-bomb", "huge-cell", "many-shared-strings", "deep-nesting", "csv-huge-cell"].includes(f.name));

  it.each(hostile.map((f) => [f.name, f] as const))("refuses %s through the check and the submit route with one clear problem, storing nothing", async (_, file) => {
    const bytes = await file.build();
    const before = await stored();
    const check = await post("check", p.customerA, upload({ name: file.fileName, bytes }));
    expect(check.status).toBe(200);
    const checkText = await check.text();
    // The answer says what is wrong in a few words; nothing of the file comes back.
    expect(checkText.length).toBeLessThan(4_000);
    const checked = (JSON.parse(checkText) as { check: { ok: boolean; problems: { kind: string; message: string }[] } }).check;
    expect(checked.ok).toBe(false);
    expect(checked.problems).toEqual([expect.objectContaining({ kind: file.expect.kind, message: expect.stringMatching(file.expect.message) })]);
    const submit = await post("submit", p.customerA, upload({ name: file.fileName, bytes }));
    expect(submit.status).toBe(422);
    const submitted = (await submit.json()) as { check: { problems: { kind: string }[] } };
    expect(submitted.check.problems.map((x) => x.kind)).toEqual([file.expect.kind]);
    expect(await stored()).toEqual(before);
  }, 60_000);

  it("refuses a 25 MB file at the route, before reading it whole", async () => {
    const file = HOSTILE_FILES.find((f) => f.name === "25mb")!;
    const before = await stored();
    for (const mode of ["check", "submit"] as const) {
      const res = await post(mode, p.customerA, upload({ name: file.fileName, bytes: await file.build() }));
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: "BAD_INPUT", message: expect.stringMatching(file.expect.message) } });
    }
    expect(await stored()).toEqual(before);
  });
});

describe("an unexpected error", () => {
  const secret = "qhyg.at.unexpected-error-secret-0001";
  const file = () => ({ name: "companies.csv", bytes: csvBytes([headerFor(qbo), [rowFor(qbo, 1)[0]!, secret, ...rowFor(qbo, 1).slice(2)]]) });

  it("answers a file check that fails unexpectedly with a reference, never a stack, a message or the file", async () => {
    // An engagement whose platform Ferry no longer manages (written by an older version): the
    // parser is asked for a platform it does not know, which it treats as a caller's mistake.
    await t.db.update(engagements).set({ platformKey: "gbol" }).where(eq(engagements.id, engagementId));
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const res = await post("check", p.customerA, upload(file()));
      expect(res.status).toBe(500);
      const text = await res.text();
      const body = JSON.parse(text) as { error: { code: string; message: string; fields: null } };
      expect(body).toEqual({ error: { code: "INTERNAL_SERVER_ERROR", message: expect.stringMatching(/^Something went wrong on our side \(reference [0-9a-f]{8}\)\.$/), fields: null } });
      for (const leak of [secret, "parseTokenFile", "gbol", " at ", ".ts:", "Error"]) expect(text).not.toContain(leak);
      // The log has the reference and where it happened, and neither the message nor the file.
      const ref = /reference ([0-9a-f]{8})/.exec(body.error.message)![1]!;
      const line = logged.mock.calls.map((args) => args.map(String).join(" ")).find((l) => l.includes(`ref=${ref}`));
      expect(line).toMatch(/\n\s+at /);
      expect(line).not.toContain(secret);
      expect(line).not.toContain("not a managed platform");
    } finally {
      logged.mockRestore();
    }
  });

  it("logs an error's frames without any line of its message, however many it has", () => {
    const error = new Error(`Unexpected value on line 2:\n${secret}\n    at fake frame (${secret})`);
    const log = internalErrorLog(error);
    expect(log).not.toContain(secret);
    expect(log).not.toContain("Unexpected value");
    expect(log.split("\n")[0]).toBe("Error");
    expect(log.split("\n").slice(1).every((l) => /^\s+at /.test(l))).toBe(true);
    expect(log.split("\n").length).toBeGreaterThan(2);
    expect(internalErrorLog("a thrown string with qhyg.at.secret")).toBe("string");
  });
});

describe("templates", () => {
  const get = (platformKey: string, format: string, actor: Actor | null = p.customerA) =>
    handleTemplateRequest(new Request(`${APP}/api/templates/${platformKey}?format=${format}`), { platformKey }, deps(actor));

  it.each(MANAGED_PLATFORMS.map((pl) => pl.key))("serves %s's template as CSV and XLSX: the header and one example row", async (key) => {
    const platform = getManagedPlatform(key)!;
    const csv = await get(key, "csv");
    expect(csv.headers.get("content-disposition")).toMatch(/^attachment; filename="ferry-token-file-.*\.csv"; filename\*=UTF-8''ferry-token-file-/);
    const lines = (await csv.text()).replace(/^\uFEFF/, "").trim().split("\r\n");
    expect(lines[0]).toBe(headerFor(platform).join(","));
    expect(lines).toHaveLength(2);
    const xlsx = await get(key, "xlsx");
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(Buffer.from(await xlsx.arrayBuffer()) as unknown as ArrayBuffer);
    expect(workbook.worksheets[0]!.getRow(1).values).toEqual([undefined, ...headerFor(platform)]);
    expect(workbook.worksheets[0]!.rowCount).toBe(2);
  });

  it("refuses the signed-out, an unknown platform and an unknown format", async () => {
    expect((await get("qhyg", "csv", null)).status).toBe(401);
    expect((await get("gbol", "csv")).status).toBe(404);
    expect((await get("qhyg", "pdf")).status).toBe(400);
  });
});

describe("the calendar invite", () => {
  it("serves a proposed or accepted window as .ics with the reference and the support contact; another organisation gets 404", async () => {
    const flow = { db: t.database, config: testConfig(), support: p.support, customer: p.customerA };
    await completeIntake(flow, { engagementId });
    const { windowId } = await agreeWindow(flow, { engagementId, startsAt: new Date("2031-03-01T22:00:00Z"), endsAt: new Date("2031-03-02T04:00:00Z") });
    const get = (actor: Actor, id = engagementId) =>
      handleInviteRequest(new Request(`${APP}/api/engagements/${id}/windows/${windowId}/invite`), { engagementId: id, windowId }, { ...deps(actor), appUrl: APP });
    const res = await get(p.customerA);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/calendar; charset=utf-8");
    const text = await res.text();
    const reference = (await getEngagement(t.database, p.support, engagementId)).reference;
    expect(text).toContain("BEGIN:VCALENDAR");
    expect(text).toContain("DTSTART:20310301T220000Z");
    expect(text).toContain("DTEND:20310302T040000Z");
    expect(text).toContain(`SUMMARY:${reference} migration window (QuickBooks Online)`);
    expect(text).toContain("STATUS:CONFIRMED");
    expect(text).toMatch(/ORGANIZER;CN="?Support One"?:mailto:support@test/i);
    expect((await get(p.support)).status).toBe(200);
    const other = await get(p.customerB);
    expect(other.status).toBe(404);
  });
});
