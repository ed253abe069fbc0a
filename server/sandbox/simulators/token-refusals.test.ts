/**
 * Each way migrated tokens can be wrong gets its own answer from each platform, through the real
 * authorization call: the status, the platform's body and words that name exactly one family
 * (never valid / rotated by the old app / revoked or expired), read back with the classifier the
 * app uses (server/platforms/token-refusals.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MANAGED_PLATFORMS, TOKEN_REFUSAL_FAMILIES, TOKEN_REFUSAL_PATTERNS, tokenRefusalFamily, type PlatformKey, type TokenRefusalFamily } from "../../platforms";
import { call, createCompany, createConnection, linkedCompany, syncAndFinish } from "@/server/testing/raw-http";
import { startTestSandbox, type CredentialKind, type TestSandbox } from "@/server/testing/test-sandbox";

let sb: TestSandbox;
let apiKey: string;

beforeAll(async () => {
  sb = await startTestSandbox();
  ({ apiKey } = await sb.control.createClient({ plan: "paid" }));
});

afterAll(async () => {
  await sb.close();
});

type ConnectionError = { statusCode: string; statusText: string; errorMessage: string; status: string };
type ConnectionJson = { status: string; dataConnectionErrors?: ConnectionError[] };

const FAMILY: Record<Exclude<CredentialKind, "valid">, TokenRefusalFamily> = {
  unknown: "never_valid",
  malformed: "never_valid",
  otherApp: "never_valid",
  otherAccount: "never_valid",
  rotated: "rotated",
  exchanged: "rotated",
  revoked: "revoked",
  expired: "revoked",
};

/** Kinds that cannot exist on a platform: the control says so (400) instead of making them. */
function applies(platformKey: PlatformKey, kind: CredentialKind): boolean {
  const platform = MANAGED_PLATFORMS.find((p) => p.key === platformKey);
  if (!platform) return false;
  if (kind === "otherAccount") return platformKey !== "fbrh";
  if (kind === "exchanged") return platform.refreshTokenRotates;
  if (kind === "expired") return platform.hasRefreshToken;
  return true;
}

const VENDOR_BODY: Record<PlatformKey, RegExp> = {
  qhyg: /Intuit answered \{("error_description":"[^"]+",)?"error":"invalid_grant"\}|ApplicationAuthorizationFailed; errorCode=003100/,
  vxvy: /FreshBooks answered \{"error":"invalid_grant","error_description":"The provided authorization grant [^"]+"\}|"errno":1003/,
  fbrh: /FreeAgent answered \{"error":"invalid_grant","error_description":"[^"]+"\}/,
  pbtz: /Wave answered \{"error": "invalid_grant"\}|"code":"FORBIDDEN"/,
  rwuv: /Zoho Accounts answered \{"error":"invalid_(code|client)"\}|"code":57/,
  fztf: /\[API\] Invalid API key or access token \(unrecognized login or wrong password\)/,
};

async function authorizeWith(platformKey: PlatformKey, credentials: Record<string, string>) {
  const companyId = await createCompany(sb, apiKey, `${platformKey} refusal`);
  const connectionId = await createConnection(sb, apiKey, companyId, platformKey);
  return call(sb, { method: "PUT", path: `/companies/${companyId}/connections/${connectionId}/authorization`, apiKey, body: credentials });
}

const kinds = Object.keys(FAMILY) as Exclude<CredentialKind, "valid">[];
const cases = MANAGED_PLATFORMS.flatMap((p) => kinds.filter((k) => applies(p.key, k)).map((kind) => [p.key, p.name, kind] as const));

describe("each refused kind of credentials, on each platform", () => {
  const seen = new Map<string, string>();

  it.each(cases)("%s (%s), %s: its own answer, in its family's words", async (platformKey, platformName, kind) => {
    const tenant = await sb.control.createTenant(platformKey, { name: "Refused Ltd", records: 5 });
    const issued = await sb.control.issueCredentials(platformKey, tenant.tenantId, kind);
    expect(issued).toMatchObject({ tenantId: tenant.tenantId, platformKey, kind });
    const result = await authorizeWith(platformKey, issued.credentials);

    if (platformKey === "fztf" && kind === "malformed") {
      // Shopify's token shape is the credential field's pattern: the service refuses it first.
      expect(result.status).toBe(400);
      expect(result.json).toMatchObject({ validation: { errors: [{ itemId: "accessToken", message: expect.stringContaining("malformed") }] } });
      return;
    }
    expect(result.status).toBe(200);
    const connection = result.json as ConnectionJson;
    expect(connection.status).toBe("Deauthorized");
    const error = connection.dataConnectionErrors?.at(-1);
    expect(error).toBeDefined();
    if (!error) return;
    const expectedStatus = kind === "otherAccount" ? "403" : platformKey === "fztf" ? "401" : "400";
    expect(error.statusCode).toBe(expectedStatus);
    expect(error.statusText).toBe({ "400": "Bad Request", "401": "Unauthorized", "403": "Forbidden" }[expectedStatus]);
    expect(error.errorMessage).toMatch(new RegExp(`^${platformName} rejected the credentials: .+ Reauthorization is required\\.$`));
    expect(error.errorMessage).toMatch(VENDOR_BODY[platformKey]);
    // A refused refresh token always says invalid_grant, as Ferry's advice expects.
    if (expectedStatus === "400") expect(error.errorMessage).toContain("invalid_grant: ");
    // Exactly one family's words.
    const matching = TOKEN_REFUSAL_FAMILIES.filter((f) => TOKEN_REFUSAL_PATTERNS[f].test(error.errorMessage));
    expect(matching).toEqual([FAMILY[kind]]);
    expect(tokenRefusalFamily(error.errorMessage)).toBe(FAMILY[kind]);
    // No other case on this platform says the same thing (identity values differ per tenant, so compare without them).
    const key = `${platformKey}:${error.errorMessage.replace(/than \S+ \S+\./, "than …")}`;
    expect(seen.get(key), `${kind} answers like ${seen.get(key)}`).toBeUndefined();
    seen.set(key, kind);
  });

  it.each(MANAGED_PLATFORMS.flatMap((p) => kinds.filter((k) => !applies(p.key, k)).map((kind) => [p.key, p.name, kind] as const)))(
    "%s (%s), %s: does not apply, and the control says why",
    async (platformKey, platformName, kind) => {
      const tenant = await sb.control.createTenant(platformKey, { name: "Not Applicable" });
      await expect(sb.control.issueCredentials(platformKey, tenant.tenantId, kind)).rejects.toMatchObject({
        status: 400,
        body: expect.stringContaining(platformName),
      });
    },
  );

  it.each(MANAGED_PLATFORMS.map((p) => [p.key, p.name] as const))("%s (%s): valid credentials link", async (platformKey) => {
    const tenant = await sb.control.createTenant(platformKey, { name: "Valid Ltd" });
    const issued = await sb.control.issueCredentials(platformKey, tenant.tenantId, "valid");
    const result = await authorizeWith(platformKey, issued.credentials);
    expect(result.json).toMatchObject({ status: "Linked" });
  });

  it("refuses an unknown kind and an unknown tenant", async () => {
    const tenant = await sb.control.createTenant("qhyg", { name: "Kinds" });
    await expect(sb.control.issueCredentials("qhyg", tenant.tenantId, "stolen" as CredentialKind)).rejects.toMatchObject({ status: 400 });
    await expect(sb.control.issueCredentials("vxvy", tenant.tenantId, "valid")).rejects.toMatchObject({ status: 404 });
  });
});

describe("other never-valid cases", () => {
  it.each(["fbrh", "vxvy", "qhyg", "pbtz", "rwuv"] as const)("%s: an access token given as the refresh token is malformed", async (platformKey) => {
    const tenant = await sb.control.createTenant(platformKey, { name: "Swapped Columns" });
    const { accessToken, refreshToken, ...rest } = tenant.credentials;
    const result = await authorizeWith(platformKey, { ...rest, accessToken: refreshToken ?? "", refreshToken: accessToken ?? "" });
    const error = (result.json as ConnectionJson).dataConnectionErrors?.at(-1);
    expect(error).toMatchObject({ statusCode: "400", errorMessage: expect.stringContaining("is malformed: it is an access token, not a refresh token") });
    expect(tokenRefusalFamily(error?.errorMessage ?? "")).toBe("never_valid");
  });

  it("an access token and a refresh token of two accounts: 403, never valid", async () => {
    const one = await sb.control.createTenant("rwuv", { name: "Zoho One" });
    const two = await sb.control.createTenant("rwuv", { name: "Zoho Two" });
    const result = await authorizeWith("rwuv", { ...one.credentials, accessToken: two.credentials.accessToken ?? "" });
    const error = (result.json as ConnectionJson).dataConnectionErrors?.at(-1);
    expect(error).toMatchObject({ statusCode: "403", errorMessage: expect.stringContaining("belong to different accounts") });
    expect(tokenRefusalFamily(error?.errorMessage ?? "")).toBe("never_valid");
  });

  it("tokens of another platform's tenant are not ones this platform issued", async () => {
    const zoho = await sb.control.createTenant("rwuv", { name: "Zoho Tenant" });
    const result = await authorizeWith("fbrh", { accessToken: zoho.credentials.accessToken ?? "", refreshToken: zoho.credentials.refreshToken ?? "" });
    expect((result.json as ConnectionJson).dataConnectionErrors?.at(-1)?.errorMessage).toContain("is not one this platform issued");
  });
});

describe("the same words when the service meets the refusal later, at a sync", () => {
  it.each(MANAGED_PLATFORMS.map((p) => [p.key, p.name] as const))(
    "%s (%s): the end customer revokes the grant after the link → the next sync fails AuthError, the connection says revoked",
    async (platformKey) => {
      const linked = await linkedCompany(sb, { apiKey, platformKey, tenant: { records: 5 } });
      // Expire the service's access token so refresh-token platforms must refresh at the next sync.
      await sb.control.advanceClock({ days: 1 });
      await sb.control.issueCredentials(platformKey, linked.tenant.tenantId, "revoked");
      await syncAndFinish(sb, apiKey, linked.companyId);
      const connection = await call(sb, { path: `/companies/${linked.companyId}/connections/${linked.connectionId}`, apiKey });
      const json = connection.json as ConnectionJson;
      expect(json.status).toBe("Deauthorized");
      expect(tokenRefusalFamily(json.dataConnectionErrors?.at(-1)?.errorMessage ?? "")).toBe("revoked");
    },
  );

  it.each(MANAGED_PLATFORMS.map((p) => [p.key, p.name] as const))("%s (%s): a rotation says rotated", async (platformKey) => {
    const linked = await linkedCompany(sb, { apiKey, platformKey, tenant: { records: 5 } });
    await sb.control.rotate(platformKey, linked.tenant.tenantId);
    await syncAndFinish(sb, apiKey, linked.companyId);
    const connection = await call(sb, { path: `/companies/${linked.companyId}/connections/${linked.connectionId}`, apiKey });
    expect(tokenRefusalFamily((connection.json as ConnectionJson).dataConnectionErrors?.at(-1)?.errorMessage ?? "")).toBe("rotated");
  });
});
