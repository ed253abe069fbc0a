"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId } from "react";
import { useTRPC } from "@/app/_trpc/react";
import { MAIL_PREFERENCES, mailPreferenceLabels, type MailPreference } from "@/core/engagements/reminders";

/** Which mail the signed-in person wants, in their account menu; read when the menu first opens. */
export function MailPreferenceChoice({ enabled, digest }: { enabled: boolean; digest: "daily" | "weekly" }) {
  const labels = mailPreferenceLabels(digest);
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const name = useId();
  const current = useQuery({ ...trpc.me.mailPreference.queryOptions(), enabled });
  const save = useMutation(trpc.me.setMailPreference.mutationOptions());
  const choose = async (preference: MailPreference) => {
    const saved = await save.mutateAsync({ preference });
    queryClient.setQueryData(trpc.me.mailPreference.queryKey(), saved);
  };
  return (
    <fieldset className="space-y-1 border-t border-slate-100 pt-2" disabled={!current.data || save.isPending}>
      <legend className="text-xs font-semibold text-slate-900">Mail from Ferry</legend>
      {MAIL_PREFERENCES.map((p) => (
        <label key={p} className="flex items-start gap-2 text-xs text-slate-700">
          <input type="radio" name={name} value={p} checked={current.data?.preference === p} onChange={() => void choose(p)} className="mt-0.5" />
          <span>{labels[p]}</span>
        </label>
      ))}
      <p aria-live="polite" className="text-xs text-slate-600">
        {save.isSuccess ? "Saved." : save.isError ? "Not saved: try again." : null}
      </p>
    </fieldset>
  );
}
