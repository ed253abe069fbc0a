import { NotFoundMessage } from "@/app/_components/not-found-message";

export default function PortalEngagementNotFound() {
  return (
    <NotFoundMessage
      title="No engagement with that id"
      message="The link may be mistyped. Your engagements are listed on your portal home."
      backHref="/portal"
      backLabel="Back to your engagements"
    />
  );
}
