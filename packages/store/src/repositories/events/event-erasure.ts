import { rowsOfPerson, type ErasedPerson } from "../erased-person";
import { transactionOf, type Transaction } from "../../transaction";

/** The person's events (accepted ones too) with the rules that have an outcome for each. */
export async function findEventsOfPerson(
  tx: Transaction,
  person: ErasedPerson,
): Promise<{ id: string; ruleKeys: string[] }[]> {
  const events = await transactionOf(tx).event.findMany({
    where: rowsOfPerson(person),
    select: { id: true, outcomes: { select: { rule_key: true } } },
  });
  return events.map((e) => ({ id: e.id, ruleKeys: e.outcomes.map((o) => o.rule_key) }));
}

/** Deletes the events; their outcomes go with them (cascade). */
export async function deleteEvents(tx: Transaction, ids: string[]): Promise<void> {
  await transactionOf(tx).event.deleteMany({ where: { id: { in: ids } } });
}
