import Link from "next/link";
import { CopyButton } from "../ui/copy-button";
import { LinkPending } from "../ui/link-pending";

/** An engagement's reference in a list: a link to it, and a button that copies the reference. */
export function ReferenceLink({ href, reference }: { href: string; reference: string }) {
  return (
    <>
      <Link href={href} className="font-mono font-medium text-indigo-700 hover:underline">
        {reference}
        <LinkPending />
      </Link>
      <CopyButton value={reference} label={`reference ${reference}`} className="ml-1 align-middle" />
    </>
  );
}
