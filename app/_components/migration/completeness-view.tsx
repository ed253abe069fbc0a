"use client";
import { Badge, Table, TBody, Td, Th, THead, Tr, type BadgeTone } from "@/app/_components/ui";
import { VERDICT_WORDS, type Completeness, type CompletenessVerdict, type DataTypeCompleteness } from "@/core/migration/completeness";

const NUMBER = new Intl.NumberFormat("en-GB");

const VERDICT_TONE: Record<CompletenessVerdict, BadgeTone> = {
  complete: "success",
  short: "danger",
  validation_issues: "warning",
  not_compared: "muted",
};

const COMPARISON_WORDS: Record<DataTypeCompleteness["comparison"], string> = {
  short: "Short",
  matches: "Complete",
  capped: "Capped, not compared",
  unknown: "No count given",
  not_compared: "No old count",
};

/** The verdict as a badge, in words (the colour only repeats them). */
export function CompletenessBadge({ verdict }: { verdict: CompletenessVerdict }) {
  return <Badge tone={VERDICT_TONE[verdict]}>{VERDICT_WORDS[verdict]}</Badge>;
}

function ValidationCell({ validation }: { validation: DataTypeCompleteness["validation"] }) {
  if (!validation) return <span className="text-slate-500">Not read</span>;
  if (!validation.errorCount && !validation.warningCount) return <span>None</span>;
  return (
    <ul className="space-y-0.5">
      {validation.errors.map((m) => (
        <li key={`e-${m.message}`}>
          <span className="font-medium text-red-800">Error</span> ×{NUMBER.format(m.count)}: {m.message}
        </li>
      ))}
      {validation.warnings.map((m) => (
        <li key={`w-${m.message}`}>
          <span className="font-medium text-amber-800">Warning</span> ×{NUMBER.format(m.count)}: {m.message}
        </li>
      ))}
    </ul>
  );
}

/**
 * Whether the company's data arrived complete: the verdict and its sentence, then per data type
 * the count read back beside the old app's, the comparison in words, the platform's caveat where it
 * applies, and the validation messages with their counts.
 */
export function CompletenessView({ completeness, company }: { completeness: Completeness; company: string }) {
  const caveats = [...new Set(completeness.dataTypes.map((d) => d.caveat).filter((c): c is string => !!c))];
  return (
    <section aria-label="Complete data" className="space-y-2">
      <p className="flex flex-wrap items-center gap-2 text-sm">
        <span className="font-medium">Complete data:</span> <CompletenessBadge verdict={completeness.verdict} /> <span>{completeness.summary}</span>
      </p>
      {completeness.dataTypes.length ? (
        <Table caption={`Records read back beside the old app's, and validation, for ${company}`}>
          <THead>
            <Tr>
              <Th>Data type</Th>
              <Th className="text-right">Read back</Th>
              <Th className="text-right">Old app</Th>
              <Th>Comparison</Th>
              <Th>Validation</Th>
            </Tr>
          </THead>
          <TBody>
            {completeness.dataTypes.map((d) => (
              <Tr key={d.dataType} data-completeness={d.comparison}>
                <Td className="py-1.5">{d.label}</Td>
                <Td className="py-1.5 text-right tabular-nums">{d.count === null ? "—" : NUMBER.format(d.count)}</Td>
                <Td className="py-1.5 text-right tabular-nums">{d.oldCount === null ? "—" : NUMBER.format(d.oldCount)}</Td>
                <Td className="py-1.5">{d.flag ?? COMPARISON_WORDS[d.comparison]}</Td>
                <Td className="py-1.5">
                  <ValidationCell validation={d.validation} />
                </Td>
              </Tr>
            ))}
          </TBody>
        </Table>
      ) : null}
      {caveats.map((c) => (
        <p key={c} className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          {c}
        </p>
      ))}
    </section>
  );
}
