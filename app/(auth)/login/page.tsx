import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { homeFor } from "@/app/_lib/home";
import { safeNextPath } from "@/app/_lib/safe-next";
import { getViewer } from "@/app/_trpc/server";
import { AuthHeading } from "../auth-heading";
import { LoginForm } from "./login-form";

export const metadata: Metadata = { title: "Sign in" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export default async function LoginPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const viewer = await getViewer();
  if (viewer) redirect(safeNextPath(first(params.next)) ?? homeFor(viewer.role));
  return (
    <>
      <AuthHeading title="Sign in to Ferry" subtitle="Managed token migrations" />
      <LoginForm initialEmail={first(params.email) ?? ""} passwordSet={first(params.invited) === "1"} next={safeNextPath(first(params.next))} />
    </>
  );
}
