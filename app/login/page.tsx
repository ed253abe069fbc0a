import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { homeFor } from "@/app/_lib/home";
import { safeNextPath } from "@/app/_lib/safe-next";
import { getViewer } from "@/app/_trpc/server";
import { LoginForm } from "./login-form";

export const metadata: Metadata = { title: "Sign in" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export default async function LoginPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const viewer = await getViewer();
  if (viewer) redirect(safeNextPath(first(params.next)) ?? homeFor(viewer.role));
  return (
    <main id="main" className="flex min-h-screen items-center justify-center px-4 py-12">
      <div className="w-full max-w-sm">
        <div className="mb-8 text-center">
          <span aria-hidden="true" className="inline-flex size-10 items-center justify-center rounded-lg bg-indigo-600 text-lg font-semibold text-white">
            F
          </span>
          <h1 className="mt-4 text-2xl font-semibold tracking-tight text-slate-900">Sign in to Ferry</h1>
          <p className="mt-1 text-sm text-slate-600">Managed token migrations</p>
        </div>
        <LoginForm
          initialEmail={first(params.email) ?? ""}
          passwordSet={first(params.invited) === "1"}
          next={safeNextPath(first(params.next))}
        />
      </div>
    </main>
  );
}
