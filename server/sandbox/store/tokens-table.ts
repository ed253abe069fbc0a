/** `tokens`: every token a simulated platform issued; the platform accepts only unretired ones. */
import type Database from "better-sqlite3";

export type TokenRow = {
  token: string;
  tenantId: string;
  kind: "access" | "refresh";
  holder: "customer" | "service";
  issuedAt: number;
  expiresAt: number | null;
  retiredAt: number | null;
  retiredReason: string | null;
  consumedBy: string | null;
  /** 1 when the platform issued it to another OAuth app than the one the service uses. */
  foreignApp: number;
};

type NewToken = Pick<TokenRow, "token" | "tenantId" | "kind" | "holder" | "issuedAt" | "expiresAt"> & { foreignApp?: number };

const COLUMNS = `token, tenant_id AS tenantId, kind, holder, issued_at AS issuedAt, expires_at AS expiresAt,
  retired_at AS retiredAt, retired_reason AS retiredReason, consumed_by AS consumedBy, foreign_app AS foreignApp`;

/** The tokens table's repository. */
export function createTokensTable(db: Database.Database) {
  const s = {
    insert: db.prepare<Required<NewToken>>(
      `INSERT INTO tokens (token, tenant_id, kind, holder, issued_at, expires_at, foreign_app)
       VALUES (@token, @tenantId, @kind, @holder, @issuedAt, @expiresAt, @foreignApp)`,
    ),
    get: db.prepare<{ token: string }, TokenRow>(`SELECT ${COLUMNS} FROM tokens WHERE token = @token`),
    retire: db.prepare<{ token: string; at: number; reason: string; consumedBy: string | null }>(
      `UPDATE tokens SET retired_at = @at, retired_reason = @reason, consumed_by = @consumedBy
       WHERE token = @token AND retired_at IS NULL`,
    ),
    retireTenant: db.prepare<{ tenantId: string; at: number; reason: string }>(
      // Only tokens issued by then: a drop applied late (at its own sandbox time) spares later ones.
      "UPDATE tokens SET retired_at = @at, retired_reason = @reason WHERE tenant_id = @tenantId AND retired_at IS NULL AND issued_at <= @at",
    ),
  };
  return {
    insert: (row: NewToken): void => {
      s.insert.run({
        token: row.token,
        tenantId: row.tenantId,
        kind: row.kind,
        holder: row.holder,
        issuedAt: row.issuedAt,
        expiresAt: row.expiresAt,
        foreignApp: row.foreignApp ?? 0,
      });
    },
    get: (token: string): TokenRow | undefined => s.get.get({ token }),
    retire: (params: { token: string; at: number; reason: string; consumedBy?: string }): void => {
      s.retire.run({ token: params.token, at: params.at, reason: params.reason, consumedBy: params.consumedBy ?? null });
    },
    retireAllForTenant: (params: { tenantId: string; at: number; reason: string }): void => {
      s.retireTenant.run(params);
    },
  };
}
