/**
 * The name a company has on the service, under the token file's name, when the two differ (the
 * service keeps only A–Z, digits and a few signs: accents are folded, the rest removed, or a
 * stand-in when nothing is left). Nothing when they are the same.
 */
export function NameOnService({ name, serviceName }: { name: string; serviceName: string }) {
  if (serviceName === name) return null;
  return (
    <span className="block text-xs text-slate-600">
      On the service: <span className="font-medium text-slate-800">{serviceName}</span>
    </span>
  );
}
