/**
 * The advice a failed test gives, keyed on the failure's kind, status and text. Token refusals
 * are read from each platform's own answer: the sandbox's, to the real authorization call.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MANAGED_PLATFORMS, type PlatformKey } from "@/server/platforms";
import { call, createCompany, createConnection } from "@/server/testing/raw-http";
import { startTestSandbox, type CredentialKind, type TestSandbox } from "@/server/testing/test-sandbox";
import { adviceFor, type Advice } from "./advice";
import { platformErrorText, type PlatformError } from "./engine/pipeline";

describe("adviceFor", () => {
  it("says the service's failures in words support can act on", () => {
    expect(adviceFor({ kind: "company_limit", status: 402, error: "Company limit exceeded" })).toMatchObject({
      code: "company_limit",
      reopenStep: null,
      text: expect.stringContaining("The service account is on a free trial with 50 companies") as string,
    });
    for (const kind of ["unauthorized", "forbidden"] as const) {
      expect(adviceFor({ kind, status: kind === "unauthorized" ? 401 : 403, error: "Unauthorized" })).toMatchObject({
        code: "api_key_refused",
        text: expect.stringContaining("The service target's API key is wrong or not allowed") as string,
      });
    }
  });

  it("keeps the failure's own words where they say more", () => {
    expect(adviceFor({ kind: "sync_failed", status: null, error: "1 data type did not sync: invoices FetchError." }).text).toMatch(/^1 data type did not sync: invoices FetchError\. Run the test again/);
    expect(adviceFor({ kind: "server_error", status: 500, error: "Internal Server Error" }).text).toContain("(500: Internal Server Error)");
    expect(adviceFor({ kind: "timeout", status: null, error: "No answer within 30000 ms." })).toMatchObject({ code: "service_unavailable" });
    expect(adviceFor({ kind: "unexpected", status: 418, error: "teapot" }).text).toContain("418: teapot");
  });
});

/** A refused authorization as the pipeline stores it: the platform's errors, and their text as the failure's. */
const refused = (errors: PlatformError[]): Advice => adviceFor({ kind: "reauthorization_required", status: null, error: platformErrorText(errors), platformErrors: errors });
const qbo = (errorMessage: string, statusCode = "400", statusText = "Bad Request"): PlatformError => ({ statusCode, statusText, errorMessage });

describe("a refused authorization: one advice per family of the platform's words", () => {
  it("tokens never valid: the file's row is wrong; a supplementary file or the reconnect link; step 4 stays", () => {
    expect(refused([qbo("QuickBooks Online rejected the credentials: invalid_grant: the refresh token was issued to another OAuth app (client id mismatch), not to the app the service uses for QuickBooks Online. Intuit answered {\"error_description\":\"Incorrect Token type or clientID\",\"error\":\"invalid_grant\"}. Reauthorization is required.")])).toEqual({
      code: "tokens_never_valid",
      text: "The platform never accepted this company's tokens (issued to another OAuth app): the token file's row is wrong, not the old app's syncing. Ask the customer for this company's tokens from the right OAuth app and account in a supplementary file, or to send its end customer the company's reconnect link.",
      reopenStep: null,
    });
  });

  it("tokens rotated: syncing must be off (step 4 reopens); the reconnect link or fresh tokens in a supplementary file", () => {
    expect(refused([qbo("QuickBooks Online rejected the credentials: invalid_grant: the refresh token was already used. The customer's own application refreshed the tokens after they were handed over, which retired every earlier token. Intuit answered {\"error\":\"invalid_grant\"}. Reauthorization is required.")])).toEqual({
      code: "tokens_rotated",
      text: "The platform says this company's tokens were replaced (already used: the old app refreshed them after the export). Ask the customer to confirm syncing is off in the old app: while it runs, it replaces the tokens of every company in the file. This company can come back by its reconnect link or by fresh tokens in a supplementary file.",
      reopenStep: 4,
    });
  });

  it("tokens revoked or expired: only the end customer can grant access again, by the reconnect link; step 4 stays", () => {
    expect(refused([qbo("QuickBooks Online rejected the credentials: invalid_grant: the refresh token was revoked: the end customer uninstalled the app from their QuickBooks Online account. Intuit answered {\"error_description\":\"Token revoked\",\"error\":\"invalid_grant\"}. Reauthorization is required.")])).toEqual({
      code: "tokens_revoked",
      text: "The platform no longer grants access to this company (the end customer uninstalled the app): only the end customer can grant it again, through the company's reconnect link. Neither the token file nor the old app's syncing is at fault.",
      reopenStep: null,
    });
  });

  it("words that name no family (a real platform's bare invalid_grant): no guess, no step reopened", () => {
    const bare = refused([qbo("Wave rejected the credentials: invalid_grant")]);
    expect(bare).toMatchObject({ code: "tokens_refused", reopenStep: null });
    expect(bare.text).toContain("its reconnect link or by fresh tokens in a supplementary file");
    // Neither the 400 nor "invalid_grant" alone is read as a rotation any more, nor a 403 as another account.
    expect(refused([qbo("refused", "403", "Forbidden")])).toMatchObject({ code: "tokens_refused", reopenStep: null });
    expect(adviceFor({ kind: "reauthorization_required", status: null, error: "The platform refused the credentials without saying why." })).toMatchObject({ code: "tokens_refused" });
  });

  it("an AuthError during the sync is the old app still syncing: step 4 reopens, with the ways back that remain", () => {
    const advice = adviceFor({ kind: "auth_error_during_sync", status: null, error: "AuthError on invoices" });
    expect(advice).toMatchObject({ code: "syncing_still_on", reopenStep: 4 });
    expect(advice.text).toContain("This company can come back by its reconnect link or by fresh tokens in a supplementary file.");
  });
});

describe("each platform's own answer, through the sandbox's authorization call", () => {
  let sb: TestSandbox;
  let apiKey: string;
  beforeAll(async () => {
    sb = await startTestSandbox();
    ({ apiKey } = await sb.control.createClient({ plan: "paid" }));
  });
  afterAll(async () => {
    await sb.close();
  });

  /** Authorizes a new connection with the credentials; the platform's errors on the connection. */
  async function authorize(platformKey: PlatformKey, credentials: Record<string, string>): Promise<PlatformError[]> {
    const companyId = await createCompany(sb, apiKey, `${platformKey} advice`);
    const connectionId = await createConnection(sb, apiKey, companyId, platformKey);
    const result = await call(sb, { method: "PUT", path: `/companies/${companyId}/connections/${connectionId}/authorization`, apiKey, body: credentials });
    expect(result.status).toBe(200);
    const json = result.json as { status: string; dataConnectionErrors?: PlatformError[] };
    expect(json.status).toBe("Deauthorized");
    return json.dataConnectionErrors ?? [];
  }

  const EXPECTED: Record<Exclude<CredentialKind, "valid">, { code: Advice["code"]; reopenStep: 4 | null; says: RegExp }> = {
    unknown: { code: "tokens_never_valid", reopenStep: null, says: /\(not issued by the platform\)/ },
    malformed: { code: "tokens_never_valid", reopenStep: null, says: /\(malformed: not the platform's token shape\)/ },
    otherApp: { code: "tokens_never_valid", reopenStep: null, says: /\(issued to another OAuth app\)/ },
    otherAccount: { code: "tokens_never_valid", reopenStep: null, says: /\(of another account than the row names\)/ },
    rotated: { code: "tokens_rotated", reopenStep: 4, says: /\(already used: the old app refreshed them after the export\)/ },
    exchanged: { code: "tokens_rotated", reopenStep: 4, says: /\(already exchanged for new tokens\)/ },
    revoked: { code: "tokens_revoked", reopenStep: null, says: /\(the end customer disconnected the app\)/ },
    expired: { code: "tokens_revoked", reopenStep: null, says: /\(expired\)/ },
  };

  /** The kinds a platform can have (as the sandbox's own tests list them), Shopify's malformed token excepted: the service refuses its shape before the platform sees it. */
  const cases = MANAGED_PLATFORMS.flatMap((p) =>
    (Object.keys(EXPECTED) as (keyof typeof EXPECTED)[])
      .filter((kind) => {
        if (kind === "otherAccount") return p.key !== "fbrh";
        if (kind === "exchanged") return p.refreshTokenRotates;
        if (kind === "expired") return p.hasRefreshToken;
        if (kind === "malformed") return p.key !== "fztf";
        return true;
      })
      .map((kind) => [p.key, p.name, kind] as const),
  );

  it.each(cases)("%s (%s), %s tokens: the family's advice, never a path the portal refuses", async (platformKey, _name, kind) => {
    const tenant = await sb.control.createTenant(platformKey, { name: "Advised Ltd", records: 3 });
    const issued = await sb.control.issueCredentials(platformKey, tenant.tenantId, kind);
    const advice = refused(await authorize(platformKey, issued.credentials));
    const expected = EXPECTED[kind];
    expect(advice).toMatchObject({ code: expected.code, reopenStep: expected.reopenStep });
    expect(advice.text).toMatch(expected.says);
    // Once a company has been authorized the migration has started: the token file can no longer be replaced.
    expect(advice.text).not.toMatch(/new file|export a new/i);
  });
});
