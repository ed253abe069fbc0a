import { NotFoundMessage } from "./_components/not-found-message";

export default function NotFound() {
  return (
    <main id="main" className="px-4 py-8">
      <NotFoundMessage />
    </main>
  );
}
