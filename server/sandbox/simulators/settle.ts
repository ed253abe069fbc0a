/**
 * Applies what fell due: scheduled drops first (they end the syncs running across them), then
 * the side effects of operations that ended: a Complete sync sets the connection's lastSync; an
 * AuthError sync or a write refused for credentials marks the connection Deauthorized. Runs at
 * the start of every API request, Link page and control for everything due by then, so the
 * effects appear in order, at the sandbox time they happened, whatever the clock did in between.
 * The webhook dispatcher's timer runs it too, so events follow the clock without an API call.
 */
import { iso } from "../domain/clock";
import type { ConnectionRow, Store } from "../store/store";
import { settleDrops } from "./drops";

function deauthorize(params: { connection: ConnectionRow; at: number; requestedAt: number; message: string }): ConnectionRow | null {
  const { connection } = params;
  // An operation planned before the latest authorization must not undo it.
  if (connection.status !== "Linked" || (connection.authorizedAt ?? 0) > params.requestedAt) return null;
  return {
    ...connection,
    status: "Deauthorized",
    errors: [
      ...connection.errors,
      {
        statusCode: "401",
        statusText: "Unauthorized",
        errorMessage: params.message,
        erroredOnUtc: iso(params.at),
        status: "Active",
      },
    ],
  };
}

/** Settles every drop, pull and push operation due by sandbox time `now`. */
export function settleDue(store: Store, now: number): void {
  if (store.drops.due(now).length > 0) store.transaction(() => settleDrops(store, now));
  const pulls = store.pulls.due(now);
  const pushes = store.pushes.due(now);
  if (pulls.length === 0 && pushes.length === 0) return;
  store.transaction(() => {
    for (const op of pulls) {
      store.pulls.markSettled(op.id);
      const connection = store.connections.get(op.connectionId);
      if (!connection) continue;
      if (op.outcome === "Complete") {
        if (connection.lastSync === null || connection.lastSync < op.completeAt) {
          store.connections.save({ ...connection, lastSync: op.completeAt });
        }
        continue;
      }
      if (op.outcome === "AuthError") {
        const next = deauthorize({
          connection,
          at: op.completeAt,
          requestedAt: op.requestedAt,
          message: op.errorMessage ?? "The platform refused the connection's credentials.",
        });
        if (next) store.connections.save(next);
      }
    }
    for (const op of pushes) {
      store.pushes.markSettled(op.key);
      if (op.outcome !== "Failed" || op.statusCode !== 401) continue;
      const connection = store.connections.get(op.connectionId);
      if (!connection) continue;
      const next = deauthorize({
        connection,
        at: op.resolvesAt,
        requestedAt: op.requestedAt,
        message: op.errorMessage ?? "The platform refused the connection's credentials.",
      });
      if (next) store.connections.save(next);
    }
    // After the connections' own changes, so a sync's read.completed follows its connection.disconnected.
    if (pulls.length > 0) store.observer().pullsSettled(pulls);
  });
}
