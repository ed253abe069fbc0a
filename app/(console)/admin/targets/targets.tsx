"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type ReactNode } from "react";
import type { UseFormRegisterReturn } from "react-hook-form";
import { ConfirmDialog } from "@/app/_components/confirm-dialog";
import { OrganizationSelect } from "@/app/_components/organization-select";
import { QueryView } from "@/app/_components/query-view";
import { useAnnouncement, type Announce } from "@/app/_components/use-announcement";
import { FormDialog } from "@/app/_components/form-dialog";
import { Badge, Button, Card, CopyButton, Field, Form, Input, Notice, Select, type NoticeTone } from "@/app/_components/ui";
import { fieldMessage, formMessage, showServerError, useZodForm } from "@/app/_components/ui/use-zod-form";
import { formatDateTime } from "@/app/_lib/labels";
import type { RouterOutputs } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { countOf, plural } from "@/core/words";
import { ZCreateTargetRequest, ZRenameTargetRequest, ZReplaceTargetKeyRequest, ZSetTargetLimitsRequest, ZAssignOrganizationRequest } from "@/server/api/routers/targets.types";

type Target = RouterOutputs["targets"]["list"][number];
type ConnectionTest = RouterOutputs["targets"]["testConnection"];

/** Targets waiting for an admin first, then the built-in sandbox, then by organisation; archived last. */
function order(rows: readonly Target[]): Target[] {
  const rank = (t: Target) => (t.archivedAt ? 3 : !t.builtIn && !t.organization ? 0 : t.builtIn ? 1 : 2);
  return [...rows].sort((a, b) => rank(a) - rank(b) || (a.organization?.name ?? "").localeCompare(b.organization?.name ?? "") || a.name.localeCompare(b.name));
}

export function ServiceTargets() {
  const trpc = useTRPC();
  const targets = useQuery(trpc.targets.list.queryOptions());
  const { announce, region } = useAnnouncement();
  const waiting = targets.data?.filter((t) => !t.builtIn && !t.organization && !t.archivedAt).length ?? 0;
  return (
    <div className="grid grid-cols-[minmax(0,1fr)] gap-8 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
      <div className="min-w-0 space-y-4">
        {waiting ? (
          <Notice tone="warning" title={`${countOf(waiting, "target waits", "targets wait")} for an organisation`}>
            A target is one customer&apos;s own account on the service, so only that organisation&apos;s engagements may use it. Assign each to the
            organisation whose account it is; until then no engagement can use it.
          </Notice>
        ) : null}
        {region}
        <QueryView
          query={targets}
          loading="Loading service targets"
          empty={{ title: "No service targets yet", text: "Add a customer's account on the service with the form. npm start adds the built-in sandbox." }}
        >
          {(rows) => (
            <ul aria-label="Service targets" className="space-y-4">
              {order(rows).map((t) => (
                <li key={t.id}>
                  <TargetCard target={t} announce={announce} />
                </li>
              ))}
            </ul>
          )}
        </QueryView>
      </div>
      <AddTarget />
    </div>
  );
}

function TargetCard({ target: t, announce }: { target: Target; announce: Announce }) {
  const trpc = useTRPC();
  const titleId = useId();
  const [dialog, setDialog] = useState<"rename" | "key" | "limits" | "assign" | "archive" | null>(null);
  const [answer, setAnswer] = useState<ConnectionTest | null>(null);
  const test = useMutation(
    trpc.targets.testConnection.mutationOptions({
      onSuccess: (result) => setAnswer(result),
      onError: (e) => announce({ tone: "error", text: e.message }),
    }),
  );
  const close = () => setDialog(null);
  const unassigned = !t.builtIn && !t.organization;
  return (
    <section aria-labelledby={titleId} className={`rounded-lg border bg-white shadow-xs ${t.archivedAt ? "border-slate-200 opacity-80" : unassigned ? "border-amber-300" : "border-slate-200"}`}>
      <div className="flex flex-wrap items-start justify-between gap-3 border-b border-slate-200 px-5 py-3">
        <div className="min-w-0">
          <h3 id={titleId} className="text-base font-semibold break-words text-slate-900">
            {t.name}
          </h3>
          <p className="mt-0.5 text-sm text-slate-600">
            {t.builtIn ? "Every organisation (Ferry's own sandbox)" : t.organization ? t.organization.name : "No organisation yet"}
          </p>
        </div>
        <div className="flex flex-wrap gap-1.5">
          {t.builtIn ? <Badge tone="info">Built-in sandbox</Badge> : <Badge tone="neutral">{t.kind === "sandbox" ? "Sandbox" : "Service"}</Badge>}
          {unassigned && !t.archivedAt ? <Badge tone="warning">Unassigned</Badge> : null}
          {t.archivedAt ? <Badge tone="muted">Archived</Badge> : null}
        </div>
      </div>
      <div className="space-y-3 px-5 py-4">
        {t.problem ? <Notice tone="warning">{t.problem}</Notice> : null}
        <dl className="grid gap-x-6 gap-y-3 text-sm sm:grid-cols-2">
          <Detail term="Base URL">
            <span className="inline-flex max-w-full items-center gap-1">
              <code className="truncate rounded bg-slate-100 px-1.5 py-0.5 text-xs" title={t.baseUrl}>
                {t.baseUrl}
              </code>
              <CopyButton value={t.baseUrl} label={`base URL of ${t.name}`} />
            </span>
          </Detail>
          <Detail term="API key">
            <code className="text-xs text-slate-700" aria-label={`API key, masked: ends ${t.apiKeyMasked.slice(-4)}`}>
              {t.apiKeyMasked}
            </code>
          </Detail>
          <Detail term="Limits">{t.limitsText}</Detail>
          <Detail term="In use by">
            {t.inUse.count === 0 ? (
              <span className="text-slate-600">No unfinished engagement</span>
            ) : (
              <>
                {t.inUse.engagements.join(", ")}
                {t.inUse.count > t.inUse.engagements.length ? ` and ${t.inUse.count - t.inUse.engagements.length} more` : ""}
              </>
            )}
          </Detail>
          <Detail term="Events">
            <EventsDetail events={t.events} />
          </Detail>
          <Detail term={t.archivedAt ? "Archived" : "Added"}>{formatDateTime(t.archivedAt ?? t.createdAt)}</Detail>
          <Detail term="Id">
            <span className="inline-flex items-center gap-1">
              <code className="text-xs text-slate-600">{t.id.slice(0, 8)}…</code>
              <CopyButton value={t.id} label={`id of ${t.name}`} />
            </span>
          </Detail>
        </dl>
        <div aria-live="polite">{answer ? <ConnectionAnswer answer={answer} /> : null}</div>
        {t.archivedAt ? null : (
          <div className="flex flex-wrap gap-2 pt-1">
            <Button size="sm" pending={test.isPending} onClick={() => test.mutate({ targetId: t.id })}>
              Test connection<span className="sr-only"> of {t.name}</span>
            </Button>
            {unassigned ? (
              <Button size="sm" variant="secondary" onClick={() => setDialog("assign")}>
                Assign organisation<span className="sr-only"> to {t.name}</span>
              </Button>
            ) : null}
            <Button size="sm" variant="secondary" onClick={() => setDialog("rename")}>
              Rename<span className="sr-only"> {t.name}</span>
            </Button>
            <Button size="sm" variant="secondary" onClick={() => setDialog("key")}>
              Replace key<span className="sr-only"> of {t.name}</span>
            </Button>
            {t.builtIn ? null : (
              <>
                <Button size="sm" variant="secondary" onClick={() => setDialog("limits")}>
                  Known limits<span className="sr-only"> of {t.name}</span>
                </Button>
                <Button size="sm" variant="ghost" onClick={() => setDialog("archive")}>
                  Archive<span className="sr-only"> {t.name}</span>
                </Button>
              </>
            )}
          </div>
        )}
      </div>
      {dialog === "rename" ? <RenameDialog target={t} onClose={close} announce={announce} /> : null}
      {dialog === "key" ? <ReplaceKeyDialog target={t} onClose={close} announce={announce} /> : null}
      {dialog === "limits" ? <LimitsDialog target={t} onClose={close} announce={announce} /> : null}
      {dialog === "assign" ? <AssignDialog target={t} onClose={close} announce={announce} /> : null}
      {dialog === "archive" ? <ArchiveDialog target={t} onClose={close} announce={announce} /> : null}
    </section>
  );
}

function Detail({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase">{term}</dt>
      <dd className="mt-0.5 break-words text-slate-900">{children}</dd>
    </div>
  );
}

const OUTCOME: Record<ConnectionTest["outcome"], { title: string; tone: NoticeTone }> = {
  works: { title: "The key works", tone: "success" },
  wrong_key: { title: "Wrong key", tone: "warning" },
  not_allowed: { title: "Not allowed", tone: "warning" },
  unreachable: { title: "Unreachable", tone: "warning" },
  other: { title: "The service answered otherwise", tone: "warning" },
};

/** The connection test's answer in words, with what support would quote to the service. */
function ConnectionAnswer({ answer }: { answer: ConnectionTest }) {
  const words = OUTCOME[answer.outcome];
  return (
    <Notice tone={words.tone} title={`Connection test: ${words.title}`}>
      <p>{answer.summary}</p>
      <p className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs opacity-90">
        <span>Tested {formatDateTime(answer.testedAt)}</span>
        {answer.status !== null ? <span>Status {answer.status}</span> : null}
        <span>{answer.durationMs} ms</span>
        {answer.correlationId ? (
          <span className="inline-flex items-center gap-1">
            correlationId <code>{answer.correlationId}</code>
            <CopyButton value={answer.correlationId} label="correlationId" />
          </span>
        ) : null}
      </p>
    </Notice>
  );
}

/** After a change: the list again, and the outcome announced. */
function useAfterChange(announce: Announce) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return async (text: string) => {
    await queryClient.invalidateQueries({ queryKey: trpc.targets.list.queryKey() });
    announce({ tone: "success", text });
  };
}

type DialogProps = { target: Target; onClose: () => void; announce: Announce };

const ZRename = ZRenameTargetRequest.pick({ name: true });

function RenameDialog({ target, onClose, announce }: DialogProps) {
  const trpc = useTRPC();
  const done = useAfterChange(announce);
  const rename = useMutation(trpc.targets.rename.mutationOptions());
  const form = useZodForm(ZRename, { defaultValues: { name: target.name } });
  const onSubmit = form.handleSubmit(async ({ name }) => {
    try {
      await rename.mutateAsync({ targetId: target.id, name });
      await done(`Renamed ${target.name} to ${name}.`);
      onClose();
    } catch (e) {
      showServerError(form, e);
    }
  });
  return (
    <FormDialog title={`Rename ${target.name}`} description="Engagements and past runs keep pointing at it; the audit log keeps the old name." form={form} onSubmit={onSubmit} submitLabel="Save name" pending={rename.isPending} onClose={onClose}>
        <Field label="Name" error={fieldMessage(form, "name")} hint="e.g. Production — Acme Lending">
          {(p) => <Input {...p} {...form.register("name")} />}
        </Field>
    </FormDialog>
  );
}

const ZReplaceKey = ZReplaceTargetKeyRequest.pick({ apiKey: true });

function ReplaceKeyDialog({ target, onClose, announce }: DialogProps) {
  const trpc = useTRPC();
  const done = useAfterChange(announce);
  const replace = useMutation(trpc.targets.replaceKey.mutationOptions());
  const form = useZodForm(ZReplaceKey, { defaultValues: { apiKey: "" } });
  const onSubmit = form.handleSubmit(async ({ apiKey }) => {
    try {
      const { apiKeyMasked } = await replace.mutateAsync({ targetId: target.id, apiKey });
      // The key leaves the browser's memory as soon as it is stored.
      form.reset();
      await done(`Replaced the API key of ${target.name}: it now ends ${apiKeyMasked}. Test the connection to check it.`);
      onClose();
    } catch (e) {
      showServerError(form, e);
    }
  });
  return (
    <FormDialog title={`Replace the API key of ${target.name}`} description={`The new key is encrypted in place of the old one, which is deleted. ${target.inUse.count ? `${plural(target.inUse.count, { one: "The engagement using it uses", other: `The ${target.inUse.count} engagements using it use` })} it for every test or bulk run started or resumed from now on.` : "No unfinished engagement uses it."}`} form={form} onSubmit={onSubmit} submitLabel="Replace key" pending={replace.isPending} onClose={onClose}>
        <p className="text-sm text-slate-700">
          Now: <code className="text-xs">{target.apiKeyMasked}</code>
        </p>
        <Field label="New API key" error={fieldMessage(form, "apiKey")} hint="Encrypted at rest; shown masked afterwards.">
          {(p) => <Input {...p} {...form.register("apiKey")} type="password" autoComplete="off" />}
        </Field>
    </FormDialog>
  );
}

const ZLimits = ZSetTargetLimitsRequest.pick({ requestsPerMinute: true, dailyQuota: true });

type LimitField = "requestsPerMinute" | "dailyQuota";

/** The two known-limits fields (empty: the service's published limits), on the new-target form and in the limits dialog. */
function LimitsFields({ register, errorOf }: { register: (name: LimitField) => UseFormRegisterReturn; errorOf: (name: LimitField) => string | undefined }) {
  return (
    <>
      <Field label="Requests per minute" error={errorOf("requestsPerMinute")} hint="Empty: the published 1,000 a minute per address.">
        {(p) => <Input {...p} {...register("requestsPerMinute")} inputMode="numeric" autoComplete="off" />}
      </Field>
      <Field label="Daily quota (requests)" error={errorOf("dailyQuota")} hint="Empty: the published 1,000 × (1 + connected companies) a day.">
        {(p) => <Input {...p} {...register("dailyQuota")} inputMode="numeric" autoComplete="off" />}
      </Field>
    </>
  );
}

function LimitsDialog({ target, onClose, announce }: DialogProps) {
  const trpc = useTRPC();
  const done = useAfterChange(announce);
  const setLimits = useMutation(trpc.targets.setLimits.mutationOptions());
  const form = useZodForm(ZLimits, {
    defaultValues: { requestsPerMinute: target.requestsPerMinute === null ? "" : String(target.requestsPerMinute), dailyQuota: target.dailyQuota === null ? "" : String(target.dailyQuota) },
  });
  const onSubmit = form.handleSubmit(async ({ requestsPerMinute, dailyQuota }) => {
    try {
      await setLimits.mutateAsync({ targetId: target.id, requestsPerMinute, dailyQuota });
      await done(`Saved the known limits of ${target.name}.`);
      onClose();
    } catch (e) {
      showServerError(form, e);
    }
  });
  return (
    <FormDialog title={`Known limits of ${target.name}`} description="Every target but the built-in sandbox is held to the service's published limits. Set other figures only when the customer's account is known to have them (e.g. a negotiated quota)." form={form} onSubmit={onSubmit} submitLabel="Save limits" pending={setLimits.isPending} onClose={onClose}>
        <LimitsFields register={(n) => form.register(n)} errorOf={(n) => fieldMessage(form, n)} />
    </FormDialog>
  );
}

const ZAssign = ZAssignOrganizationRequest.pick({ organizationId: true });

function AssignDialog({ target, onClose, announce }: DialogProps) {
  const trpc = useTRPC();
  const done = useAfterChange(announce);
  const assign = useMutation(trpc.targets.assignOrganization.mutationOptions());
  const form = useZodForm(ZAssign, { defaultValues: { organizationId: "" } });
  const onSubmit = form.handleSubmit(async ({ organizationId }) => {
    try {
      await assign.mutateAsync({ targetId: target.id, organizationId });
      await done(`Assigned ${target.name} to its organisation; its engagements can now use it.`);
      onClose();
    } catch (e) {
      showServerError(form, e);
    }
  });
  return (
    <FormDialog title={`Assign ${target.name}`} description="Choose the organisation whose own account on the service this is. Only that organisation's engagements can use it, and it cannot move to another afterwards." form={form} onSubmit={onSubmit} submitLabel="Assign" pending={assign.isPending} onClose={onClose}>
        {target.inUse.count ? (
          <p className="text-sm text-slate-700">
            Pointed at now by: {target.inUse.engagements.join(", ")}
            {target.inUse.count > target.inUse.engagements.length ? ` and ${target.inUse.count - target.inUse.engagements.length} more` : ""}. Engagements of other
            organisations will have to choose another target.
          </p>
        ) : null}
        <Field label="Organisation" error={fieldMessage(form, "organizationId")}>
          {(p) => <OrganizationSelect control={p} {...form.register("organizationId")} />}
        </Field>
    </FormDialog>
  );
}

function ArchiveDialog({ target, onClose, announce }: DialogProps) {
  const trpc = useTRPC();
  const done = useAfterChange(announce);
  const archive = useMutation(trpc.targets.archive.mutationOptions());
  return (
    <ConfirmDialog
      title={`Archive ${target.name}?`}
      description="An archived target is kept for the record (past runs name it) but offered to no engagement, and its key is never used again."
      confirmLabel="Archive target"
      pending={archive.isPending}
      error={archive.error}
      onClose={onClose}
      confirm={async () => {
        await archive.mutateAsync({ targetId: target.id });
        await done(`Archived ${target.name}.`);
        onClose();
      }}
    >
      {target.inUse.count ? <p>It is in use by {target.inUse.engagements.join(", ")}: point them at another target first.</p> : null}
    </ConfirmDialog>
  );
}

function AddTarget() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [added, setAdded] = useState<string | null>(null);
  const form = useZodForm(ZCreateTargetRequest, {
    defaultValues: { name: "", baseUrl: "", apiKey: "", kind: "service", organizationId: "", requestsPerMinute: "", dailyQuota: "" },
  });
  const create = useMutation(trpc.targets.create.mutationOptions());
  const onSubmit = form.handleSubmit(async (input) => {
    setAdded(null);
    try {
      await create.mutateAsync(input);
      await queryClient.invalidateQueries({ queryKey: trpc.targets.list.queryKey() });
      setAdded(input.name);
      // The key leaves the browser's memory as soon as it is stored.
      form.reset();
    } catch (e) {
      showServerError(form, e);
    }
  });
  return (
    <Card title="Add a service target" description="One customer's own account on the service." className="self-start">
      <Form onSubmit={onSubmit} className="space-y-4" aria-label="Add a service target">
        {added ? <Notice tone="success">Added {added}.</Notice> : null}
        {formMessage(form) ? <Notice tone="error">{formMessage(form)}</Notice> : null}
        <Field label="Name" error={fieldMessage(form, "name")} hint="e.g. Production — Acme Lending">
          {(p) => <Input {...p} {...form.register("name")} />}
        </Field>
        <Field label="Organisation" error={fieldMessage(form, "organizationId")} hint="Whose account it is: only that organisation's engagements can use it.">
          {(p) => <OrganizationSelect control={p} emptyLabel="None yet (assign later)" {...form.register("organizationId")} />}
        </Field>
        <Field label="Base URL" error={fieldMessage(form, "baseUrl")} hint="The service's API root over https, e.g. https://api.codat.io (plain http only on this machine).">
          {(p) => <Input {...p} {...form.register("baseUrl")} inputMode="url" />}
        </Field>
        <Field label="API key" error={fieldMessage(form, "apiKey")} hint="Encrypted at rest; shown masked afterwards.">
          {(p) => <Input {...p} {...form.register("apiKey")} type="password" autoComplete="off" />}
        </Field>
        <Field label="Kind" error={fieldMessage(form, "kind")} hint="Either way it keeps the service's limits; only Ferry's built-in sandbox has its own.">
          {(p) => (
            <Select {...p} {...form.register("kind")}>
              <option value="service">The real service</option>
              <option value="sandbox">A sandbox of the service</option>
            </Select>
          )}
        </Field>
        <fieldset className="space-y-3 rounded-md border border-slate-200 p-3">
          <legend className="px-1 text-sm font-medium text-slate-800">Known limits (optional)</legend>
          <LimitsFields register={(n) => form.register(n)} errorOf={(n) => fieldMessage(form, n)} />
        </fieldset>
        <Button type="submit" pending={create.isPending}>
          Add target
        </Button>
      </Form>
    </Card>
  );
}

/** Whether the service's webhooks reach Ferry for this target: the last event, refusals, an announced pause. */
function EventsDetail({ events }: { events: Target["events"] }) {
  const paused = events.pausedUntil;
  return (
    <span className="flex flex-col gap-0.5">
      <span>
        {events.consumers === 0
          ? "No webhook consumer: the watch polls (Ferry needs a public URL, FERRY_PUBLIC_URL)."
          : `Webhooks on (${countOf(events.consumers, "consumer", "consumers")}).`}{" "}
        {events.lastEventAt ? `Last event ${formatDateTime(events.lastEventAt)} (${events.lastEventType ?? "unknown"}).` : events.consumers ? "No event has arrived yet." : null}
      </span>
      {events.failures > 0 ? (
        <span className="text-amber-800">
          {countOf(events.failures, "delivery refused", "deliveries refused")}, the last {formatDateTime(events.lastFailureAt)}: {events.lastFailure}
        </span>
      ) : null}
      {paused ? <span className="text-amber-800">Every run on it waits until {formatDateTime(paused)}: the service announced its daily quota spent.</span> : null}
    </span>
  );
}
