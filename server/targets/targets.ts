/**
 * Service targets: where an engagement's migration runs — the built-in sandbox or a real service
 * (base URL + API key). The API key is encrypted at rest and only ever shown masked: the mask is
 * made when the key is encrypted, so listing never decrypts (and one value that no longer decrypts
 * cannot break the list). The key is decrypted only to be used, and each decryption is audited.
 */
import { asc, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { engagements, serviceTargets } from "@/db/schema";
import { AppError, fieldError } from "@/server/errors";
import type { Actor } from "@/server/security/actor";
import { recordAudit } from "@/server/security/audit";
import { decryptSecret, encryptSecret, maskSecret, type KeyRing } from "@/server/security/secrets";

export type ServiceTargetView = {
  id: string;
  name: string;
  baseUrl: string;
  kind: "sandbox" | "service";
  apiKeyMasked: string;
  createdAt: Date;
};

const aad = (id: string) => `service_target:${id}`;

/** Adds a service target with its API key encrypted. */
export function createServiceTarget(
  db: Db,
  ring: KeyRing,
  actor: Actor | null,
  input: { name: string; baseUrl: string; apiKey: string; kind: "sandbox" | "service" },
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
      targetType: "service_target",
      targetId: id,
      after: { name: input.name.trim(), baseUrl: url.toString(), kind: input.kind },
    });
  });
  return { id };
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

/** The decrypted API key of a target, for the service client only; the decryption is audited. */
export function revealTargetApiKey(db: Db, ring: KeyRing, actor: Actor | null, id: string, purpose: string): string {
  const t = db.select().from(serviceTargets).where(eq(serviceTargets.id, id)).get();
  if (!t) throw fieldError("serviceTargetId", "No such service target.");
  const key = decryptSecret(ring, t.apiKeyCipher, aad(id));
  recordAudit(db, { actor, action: "secret.decrypted", targetType: "service_target", targetId: id, after: { purpose } });
  return key;
}

/** Points an engagement at a service target (the sandbox for rehearsal, or the real service). */
export function setEngagementTarget(
  db: Db,
  actor: Actor,
  input: { engagementId: string; serviceTargetId: string },
): void {
  db.transaction((tx) => {
    const target = tx.select().from(serviceTargets).where(eq(serviceTargets.id, input.serviceTargetId)).get();
    if (!target) throw fieldError("serviceTargetId", "Choose an existing service target.");
    const eng = tx.select().from(engagements).where(eq(engagements.id, input.engagementId)).get();
    if (!eng) throw new AppError("NOT_FOUND", "No engagement with that id.");
    if (eng.status === "completed" || eng.status === "cancelled") {
      throw new AppError("PRECONDITION_FAILED", `The engagement is ${eng.status}; its service target can no longer change.`);
    }
    if (eng.serviceTargetId === target.id) return;
    const before = eng.serviceTargetId
      ? tx.select({ name: serviceTargets.name }).from(serviceTargets).where(eq(serviceTargets.id, eng.serviceTargetId)).get()
      : undefined;
    tx.update(engagements).set({ serviceTargetId: target.id, updatedAt: new Date() }).where(eq(engagements.id, eng.id)).run();
    recordAudit(tx, {
      actor,
      action: "engagement.target_changed",
      targetType: "engagement",
      targetId: eng.id,
      engagementId: eng.id,
      organizationId: eng.organizationId,
      before: { serviceTarget: before?.name ?? null },
      after: { serviceTarget: target.name, baseUrl: target.baseUrl },
    });
  });
}
