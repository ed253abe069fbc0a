/**
 * A connection losing its authorization at the platform, as happens after a migration: the end
 * customer disconnects the app from their account (`revoked`) or uninstalls it (`uninstalled`).
 * The platform retires every live token of the account, so every connection holding that account
 * becomes Deauthorized with the platform's words for it, and syncs still running on it end
 * AuthError at the moment of the drop. A drop can be scheduled at a later sandbox time: it is
 * stored and applied, at its own time, by the next request that settles what fell due — so a
 * connection's status follows the clock when read, as sync progress does.
 *
 * Synchronous: callers run these inside a store transaction.
 */
import { randomUUID } from "node:crypto";
import { iso } from "../domain/clock";
import type { ConnectionRow, DropReason, DropRow, Store } from "../store/store";
import { platformOf } from "./profiles";
import { platformRefusal } from "./token-refusals";
import { revokeTenantTokens } from "./tokens";

/** Applies a drop of `connection` at sandbox time `at`; returns the connection as it then stands. */
export function applyDrop(params: { store: Store; connection: ConnectionRow; at: number; reason: DropReason }): ConnectionRow {
  const { store, connection, at, reason } = params;
  const rejection = platformRefusal(platformOf(connection.platformKey), { kind: reason });
  const affected = connection.tenantId ? store.connections.listByTenant(connection.tenantId) : [connection];
  if (connection.tenantId) {
    revokeTenantTokens({ store, tenantId: connection.tenantId, at, reason });
    for (const op of store.pulls.pendingForTenant({ tenantId: connection.tenantId, now: at })) {
      store.pulls.replan({ id: op.id, completeAt: Math.max(op.fetchAt, at), outcome: "AuthError", errorMessage: rejection.errorMessage });
    }
  }
  let result = connection;
  for (const c of affected) {
    // A connection authorized after the drop's time holds tokens the drop did not revoke.
    if (c.status !== "Linked" || (c.authorizedAt ?? 0) > at) continue;
    const next: ConnectionRow = {
      ...c,
      status: "Deauthorized",
      errors: [...c.errors, { ...rejection, erroredOnUtc: iso(at), status: "Active" }],
    };
    store.connections.save(next);
    if (c.id === connection.id) result = next;
  }
  return result;
}

/** Stores a drop to happen at sandbox time `at` (after now). */
export function scheduleDrop(params: { store: Store; connection: ConnectionRow; at: number; reason: DropReason; now: number }): DropRow {
  const row: DropRow = {
    id: randomUUID(),
    connectionId: params.connection.id,
    companyId: params.connection.companyId,
    at: params.at,
    reason: params.reason,
    createdAt: params.now,
    appliedAt: null,
  };
  params.store.drops.insert(row);
  return row;
}

/** Applies every scheduled drop due by `now`, oldest first, each at its own time. */
export function settleDrops(store: Store, now: number): void {
  for (const drop of store.drops.due(now)) {
    const connection = store.connections.get(drop.connectionId);
    if (connection) applyDrop({ store, connection, at: drop.at, reason: drop.reason });
    store.drops.markApplied({ id: drop.id, at: drop.at });
  }
}
