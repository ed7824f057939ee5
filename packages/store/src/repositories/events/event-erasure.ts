import type { TransactionClient } from "../../transaction";
import { rowsOfPerson, type ErasedPerson } from "../erased-person";

/** The person's events (accepted ones too) with the rules that have an outcome for each. */
export async function findEventsOfPerson(
  tx: TransactionClient,
  person: ErasedPerson,
): Promise<{ id: string; ruleKeys: string[] }[]> {
  const events = await tx.event.findMany({
    where: rowsOfPerson(person),
    select: { id: true, outcomes: { select: { rule_key: true } } },
  });
  return events.map((e) => ({ id: e.id, ruleKeys: e.outcomes.map((o) => o.rule_key) }));
}

/** Deletes the events; their outcomes go with them (cascade). */
export async function deleteEvents(tx: TransactionClient, ids: string[]): Promise<void> {
  await tx.event.deleteMany({ where: { id: { in: ids } } });
}
