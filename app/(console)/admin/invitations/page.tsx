import type { Metadata } from "next";
import { requireAdmin } from "@/app/(console)/console-access";
import Link from "next/link";
import { PageHeader } from "@/app/_components/ui";
import { getQueryClient, HydrateClient, trpc } from "@/app/_trpc/server";
import { INVITATION_TTL_DAYS } from "@/core/accounts/invitation-lifetime";
import { countOf } from "@/core/words";
import { Invitations } from "./invitations";

export const metadata: Metadata = { title: "Invitations" };

export default async function InvitationsPage() {
  await requireAdmin();
  const queryClient = getQueryClient();
  await Promise.all([
    queryClient.prefetchQuery(trpc.invitations.list.queryOptions()),
    queryClient.prefetchQuery(trpc.organizations.list.queryOptions()),
  ]);
  return (
    <HydrateClient>
      <PageHeader
        title="Invitations"
        description={
          <>
            Invite staff or customer users. The link works once and expires after {countOf(INVITATION_TTL_DAYS, "day", "days")}; without SMTP the email lands in the{" "}
            <Link href="/admin/outbox" className="font-medium text-indigo-700 underline">
              outbox
            </Link>
            .
          </>
        }
      />
      <Invitations />
    </HydrateClient>
  );
}
