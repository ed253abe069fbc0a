import { CopyableId, cn } from "@/app/_components/ui";
import { formatDateTime } from "@/app/_lib/labels";
import { validationLines, type Failure } from "@/core/migration/failure";

/**
 * A failed call as every screen shows it (a test run's failure, a company's last error in the bulk
 * run and in the handover report): the service's status and error text with its validation
 * messages, the call and when, and the correlationId to copy — what support quotes to the service.
 */
export function FailureDetails({ failure, subject, className }: { failure: Failure; subject: string; className?: string }) {
  const lines = validationLines(failure);
  // Which call failed (and which part of the service answered), and when.
  const context = [failure.operation ? `${failure.operation}${failure.service ? ` (${failure.service})` : ""}` : failure.service, failure.at ? formatDateTime(failure.at) : null].filter(Boolean);
  return (
    <div className={cn("space-y-1 text-xs", className)}>
      <p className="break-words text-red-800">
        {failure.status !== null ? <span className="font-semibold">{failure.status} </span> : null}
        {failure.error}
        {lines.length ? ` (${lines.join("; ")})` : ""}
      </p>
      {context.length ? <p className="text-slate-600">{context.join(" · ")}</p> : null}
      {failure.correlationId ? (
        <p className="text-slate-600">
          correlationId <CopyableId value={failure.correlationId} label={`correlationId of ${subject}`} />
        </p>
      ) : null}
    </div>
  );
}

/**
 * A failed call in a table's cell: the status and error text in at most two lines (the whole on
 * hover, and to screen readers), and the correlationId, short, to copy. The row stays a row.
 */
export function FailureSummary({ failure, subject }: { failure: Failure; subject: string }) {
  const lines = validationLines(failure);
  const text = `${failure.status !== null ? `${failure.status} ` : ""}${failure.error}${lines.length ? ` (${lines.join("; ")})` : ""}`;
  return (
    <div className="space-y-0.5 text-xs">
      <p className="line-clamp-2 break-words text-red-800" title={text}>
        {text}
      </p>
      {failure.correlationId ? <CopyableId value={failure.correlationId} label={`correlationId of ${subject}`} short /> : null}
    </div>
  );
}
