import { CopyButton, Notice } from "@/app/_components/ui";
import { formatDateTime } from "@/app/_lib/labels";
import type { ConfirmationsView } from "@/app/_lib/types";

/** Step 3: the callback URL to add to the customer's OAuth app, with a copy button and the platform's steps. */
export function CallbackPanel({ callback }: { callback: ConfirmationsView["callback"] }) {
  return (
    <div className="space-y-3 text-sm">
      <div className="flex max-w-full flex-wrap items-center gap-1">
        <span className="font-medium text-slate-700">Callback URL:</span>
        <code className="rounded bg-slate-100 px-1.5 py-0.5 text-xs break-all" data-testid="callback-url">
          {callback.url}
        </code>
        <CopyButton value={callback.url} label="callback URL" />
      </div>
      <ol className="list-decimal space-y-1 pl-5 text-slate-800">
        {callback.instructions.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ol>
      {callback.source === "operator-convention" ? (
        <p className="text-xs text-slate-600">The service does not publish this platform&apos;s callback URL; this is the address Ferry&apos;s operators use for it.</p>
      ) : null}
    </div>
  );
}

/** Step 4: why syncing must be off, and the risk the file carries now. */
export function SyncingRiskPanel({ risk }: { risk: ConfirmationsView["risk"] }) {
  return (
    <div className="space-y-3 text-sm">
      {risk.issuedAfterConfirmation ? (
        <Notice tone="warning" title="The old app is still refreshing">
          {risk.issuedAfterConfirmation.companies.toLocaleString("en-GB")} of the file&apos;s access tokens {risk.issuedAfterConfirmation.companies === 1 ? "was" : "were"} issued after syncing was
          confirmed off ({formatDateTime(risk.issuedAfterConfirmation.confirmedAt)}), the latest at {formatDateTime(risk.issuedAfterConfirmation.lastIssuedAt)}: something still refreshes
          these companies&apos; tokens{risk.refreshTokensRotate ? `, and each refresh retires the refresh token Ferry would migrate` : ""}. Turn off every sync and scheduled refresh in the old app before the window.
        </Notice>
      ) : null}
      <Notice tone={risk.level === "high" ? "warning" : "info"} title={risk.refreshTokensRotate ? `${risk.platformName} rotates refresh tokens` : "Why syncing must be off"}>
        {risk.why}
      </Notice>
      <dl className="grid gap-x-4 gap-y-1 sm:grid-cols-[max-content_1fr]" aria-label="Risk from the token file">
        <dt className="font-medium text-slate-700">File submitted</dt>
        <dd>{risk.fileSubmittedAt ? `${formatDateTime(risk.fileSubmittedAt)} (${risk.hoursSinceSubmission} h ago)` : "Not yet"}</dd>
        <dt className="font-medium text-slate-700">Access tokens expired since</dt>
        <dd>
          {risk.expiredAccessTokens.toLocaleString("en-GB")} of {risk.companies.toLocaleString("en-GB")}
          {risk.withoutExpiry ? ` (${risk.withoutExpiry.toLocaleString("en-GB")} without an expiry in the file)` : ""}
        </dd>
        <dt className="font-medium text-slate-700">Refresh tokens rotate</dt>
        <dd>{risk.hasRefreshToken ? (risk.refreshTokensRotate ? "Yes: one refresh by the old app kills the file's copy" : "No") : "No refresh tokens on this platform"}</dd>
      </dl>
    </div>
  );
}
