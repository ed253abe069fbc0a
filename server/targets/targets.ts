/**
 * Service targets: where an engagement's migration runs — the built-in sandbox or a real service
 * (base URL + API key). The API key is encrypted at rest and only ever shown masked: the mask is
 * made when the key is encrypted, so listing never decrypts (and one value that no longer decrypts
 * cannot break the list). The key is decrypted only to be used, and each decryption is audited.
 */
import { asc, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { serviceTargets } from "@/db/schema";
import { fieldError } from "@/server/errors";
import type { Actor } from "@/server/security/actor";
import { recordAudit, type DbOrTx } from "@/server/security/audit";
import { decryptSecret, encryptSecret, maskSecret, type KeyRing } from "@/server/security/secrets";
import type { ServiceTargetKind } from "./kinds";
import type { ServiceTargetView } from "./schemas";


const aad = (id: string) => `service_target:${id}`;

/** Adds a service target with its API key encrypted. */
export function createServiceTarget(
  db: Db,
  ring: KeyRing,
  actor: Actor | null,
  input: { name: string; baseUrl: string; apiKey: string; kind: ServiceTargetKind },
): { id: string } {
  let url: URL;
  try {
    url = new URL(input.baseUrl);
  } catch {
    throw fieldError("baseUrl", "Enter the service's base URL, e.g. https://api.codat.io");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw fieldError("baseUrl", "The base URL must be http(s).");
  if (!input.apiKey.trim()) throw fieldError("apiKey", "Enter the API key.");
  const id = crypto.randomUUID();
  db.transaction((tx) => {
    tx.insert(serviceTargets)
      .values({
        id,
        name: input.name.trim(),
        baseUrl: url.toString().replace(/\/$/, ""),
        apiKeyCipher: encryptSecret(ring, input.apiKey.trim(), aad(id)),
        apiKeyMask: maskSecret(input.apiKey.trim()),
        kind: input.kind,
      })
      .run();
    recordAudit(tx, {
      actor,
      action: "service_target.created",
     
      targetId: id,
      after: { name: input.name.trim(), baseUrl: url.toString(), kind: input.kind },
    });
  });
  return { id };
}

/** One target's name, kind and base URL, or undefined. */
export function findServiceTarget(tx: DbOrTx, id: string): { id: string; name: string; kind: ServiceTargetKind; baseUrl: string } | undefined {
  return tx
    .select({ id: serviceTargets.id, name: serviceTargets.name, kind: serviceTargets.kind, baseUrl: serviceTargets.baseUrl })
    .from(serviceTargets)
    .where(eq(serviceTargets.id, id))
    .get();
}

/** The built-in sandbox target new engagements start on, if one is registered. */
export function findSandboxTarget(tx: DbOrTx): { id: string } | undefined {
  return tx.select({ id: serviceTargets.id }).from(serviceTargets).where(eq(serviceTargets.kind, "sandbox")).orderBy(asc(serviceTargets.createdAt)).get();
}

/** Every target, API keys masked (from the stored mask; nothing is decrypted). */
export function listServiceTargets(db: Db): ServiceTargetView[] {
  return db
    .select()
    .from(serviceTargets)
    .orderBy(asc(serviceTargets.createdAt))
    .all()
    .map((t) => ({
      id: t.id,
      name: t.name,
      baseUrl: t.baseUrl,
      kind: t.kind,
      // Targets added before masks were stored show no characters of their key.
      apiKeyMasked: t.apiKeyMask ?? maskSecret(""),
      createdAt: t.createdAt,
    }));
}

/**
 * The decrypted API key of a target, for the service client only; the decryption is audited (on
 * the engagement's timeline too when `engagement` names the one it is used for).
 */
export function revealTargetApiKey(
  db: Db,
  ring: KeyRing,
  actor: Actor | null,
  id: string,
  purpose: string,
  engagement?: { engagementId: string; organizationId: string },
): string {
  const t = db.select().from(serviceTargets).where(eq(serviceTargets.id, id)).get();
  if (!t) throw fieldError("serviceTargetId", "No such service target.");
  const key = decryptSecret(ring, t.apiKeyCipher, aad(id));
  recordAudit(db, { actor, action: "secret.decrypted", targetId: id, after: { purpose }, ...engagement });
  return key;
}
