import { NotFoundMessage } from "@/app/_components/not-found-message";

export default function EngagementNotFound() {
  return (
    <NotFoundMessage
      title="No engagement with that id"
      message="It may have been mistyped, or the link is from somewhere else."
      backHref="/engagements"
      backLabel="Back to engagements"
    />
  );
}
