import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { openReconnectLink, type ReconnectLinkAnswer } from "@/server/api/reconnect-links";
import { AuthHeading } from "../../auth-heading";

export const metadata: Metadata = { title: "Reconnect", robots: { index: false, follow: false }, referrer: "no-referrer" };
export const dynamic = "force-dynamic";

/**
 * A company's reconnect link (server/migration/watch/reconnect-link.ts), opened by its end
 * customer: a fresh Link URL from the service and a redirect there, or why not. The token in the
 * address is the only credential; the end customer has no Ferry account.
 */
export default async function ReconnectPage({ params }: { params: Promise<{ link: string }> }) {
  const { link } = await params;
  const answer = await openReconnectLink(link);
  if (answer.kind === "redirect") redirect(answer.url);
  return <LinkProblem answer={answer} />;
}

function LinkProblem({ answer }: { answer: Exclude<ReconnectLinkAnswer, { kind: "redirect" }> }) {
  if (answer.kind === "unknown") {
    return (
      <>
        <AuthHeading title="This link is not valid" />
        <Panel>
          <p data-testid="reconnect-problem">Check that the whole link was copied from the message you were sent. If it still does not work, ask the business that sent it for a new one.</p>
        </Panel>
      </>
    );
  }
  if (answer.kind === "busy") {
    return (
      <>
        <AuthHeading title="Please wait a minute" subtitle={answer.companyName} />
        <Panel>
          <p data-testid="reconnect-problem">This link was opened many times in the last minute. Wait a minute, then open it once more: it stays valid.</p>
        </Panel>
      </>
    );
  }
  if (answer.kind === "closed") {
    return (
      <>
        <AuthHeading title="This link has closed" subtitle={answer.companyName} />
        <Panel>
          <p data-testid="reconnect-problem">{answer.reason}</p>
          <p className="mt-3">If your company still needs to reconnect, ask {answer.customerName} for help.</p>
        </Panel>
      </>
    );
  }
  return (
    <>
      <AuthHeading title="The connection page could not be opened" subtitle={answer.companyName} />
      <Panel>
        <p data-testid="reconnect-problem">The service that holds {answer.customerName}&apos;s connections did not give a page to reconnect on just now. Try the same link again in a few minutes; it stays valid.</p>
        <dl className="mt-4 space-y-1 text-left text-sm text-slate-600">
          <div>
            <dt className="inline font-medium text-slate-700">What it said: </dt>
            <dd className="inline" data-testid="reconnect-service-error">
              {answer.status !== null ? `${answer.status} ` : ""}
              {answer.error}
            </dd>
          </div>
          {answer.correlationId ? (
            <div>
              <dt className="inline font-medium text-slate-700">Reference for support: </dt>
              <dd className="inline font-mono break-all">{answer.correlationId}</dd>
            </div>
          ) : null}
        </dl>
      </Panel>
    </>
  );
}

function Panel({ children }: { children: React.ReactNode }) {
  return <div className="rounded-lg border border-slate-200 bg-white p-6 text-center text-slate-800 shadow-xs">{children}</div>;
}
