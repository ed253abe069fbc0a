import { redirect } from "next/navigation";
import { getViewer } from "./_trpc/server";
import { homeFor } from "./_lib/home";

/** The front door: everyone goes to the home of their role. */
export default async function Home() {
  const viewer = await getViewer();
  redirect(homeFor(viewer?.role ?? null));
}
