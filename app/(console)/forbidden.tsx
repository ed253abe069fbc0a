import { Forbidden } from "@/app/_components/forbidden";

/** HTTP 403 inside the console: support staff opening an admin page (the admin layout calls forbidden()). */
export default function ConsoleForbidden() {
  return <Forbidden message="Only Ferry admins manage people, organisations, invitations and service targets." homeHref="/engagements" />;
}
