/**
 * @module The rule test's warning for channel entries without a contact point (issue 17): such a
 * rule is valid and stored, but each of its deliveries to that entry would fail, with this reason.
 */
import type { RuleTestResult } from '../rules/rule-test.ts';
import {
  noContactPoint,
  parseChannelRef,
  type ChannelRef,
  type ContactPoint,
} from './contact-point.ts';

/** The failure reason of each entry that no contact point answers, in order. */
export function missingContactPoints(
  entries: readonly string[] | null | undefined,
  resolve: (ref: ChannelRef) => ContactPoint | undefined,
): string[] {
  const missing: string[] = [];
  for (const entry of new Set(entries ?? [])) {
    const ref = parseChannelRef(entry);
    if (ref !== undefined && resolve(ref) === undefined) missing.push(noContactPoint(ref));
  }
  return missing;
}

/** A successful result that names the missing contact points: status WARNING, one sentence each. */
export function withContactPointWarnings(
  result: RuleTestResult,
  missing: readonly string[],
): RuleTestResult {
  if (!result.success || missing.length === 0) return result;
  const warnings = missing.map(
    (reason) =>
      `Warning: ${reason}: its deliveries will fail until one is created (POST /api/v1/contact-points).`,
  );
  return {
    ...result,
    message: [result.message, ...warnings].join(' '),
    compilationStatus: 'WARNING',
  };
}
