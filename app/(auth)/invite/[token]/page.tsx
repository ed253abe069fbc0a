import type { Metadata } from "next";
import Link from "next/link";
import { TRPCError } from "@trpc/server";
import { buttonClasses } from "@/app/_components/ui";
import { getCaller } from "@/app/_trpc/server";
import { AuthHeading } from "../../auth-heading";
import { AcceptInvitationForm } from "./accept-form";

export const metadata: Metadata = { title: "Invitation" };

/** The page an invitation link opens. A link that cannot be used says why and offers nothing else. */
export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const caller = await getCaller();
  const found = await caller.invitations.lookup({ token }).catch((error: unknown) => {
    // A malformed token (too long, empty) is just an unknown link to the person holding it.
    if (error instanceof TRPCError && error.code === "BAD_REQUEST") return { status: "unknown" as const, message: "This invitation link is not valid." };
    throw error;
  });

  return (
    <>
      <AuthHeading title={found.status === "pending" ? "Welcome to Ferry" : "This invitation can't be used"} />
      {found.status === "pending" ? (
          <AcceptInvitationForm
            token={token}
            email={found.email}
            name={found.name}
            organizationName={found.organizationName}
            role={found.role}
          />
        ) : (
          <div className="rounded-lg border border-slate-200 bg-white p-6 text-center shadow-xs">
            <p className="text-slate-800" data-testid="invitation-problem">
              {found.message}
            </p>
            <Link href="/login" className={buttonClasses({ variant: "secondary", className: "mt-5" })}>
              Go to sign in
            </Link>
          </div>
        )}
    </>
  );
}
