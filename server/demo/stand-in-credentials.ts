/**
 * Credentials that pass the intake's checks for every platform, for demo files made without a
 * sandbox to issue real tokens (and for tests that need valid-looking rows). They open nothing.
 */
import type { ManagedPlatform } from "@/server/platforms";

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
