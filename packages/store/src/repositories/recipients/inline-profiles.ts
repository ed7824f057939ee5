import { transactionOf, type Transaction } from "../../transaction";

// Inline profiles of a batch of events written in three statements instead of about six per event
// (docs/events.md "Recipient", docs/benchmarks.md "Delivery drain by shape"): the
// profiles are read from the events themselves, so nothing is sent twice. The same writes as one
// profile at a time: given fields replace stored ones, a new person is created, an `addresses`
// list replaces the person's addresses (each created a millisecond after the previous, keeping
// their order). The caller holds every person's locks and passes at most one event per person.

/** The people written: external id → internal id, and whether the row was created. */
export type AppliedProfiles = Map<string, { recipientId: string; created: boolean }>;

/**
 * Applies the inline profiles of `events` (event id → a new recipient id to use if the person is
 * new). Events without a profile, and profiles with an address on one of `skipChannels` (text
 * channels, whose numbers need locks and suppression checks of their own), are left alone.
 */
export async function applyInlineProfiles(
  tx: Transaction,
  events: { eventId: string; newRecipientId: string }[],
  skipChannels: readonly string[],
  now: Date,
): Promise<AppliedProfiles> {
  if (events.length === 0) return new Map();
  const input = `
    input AS (
      SELECT e.recipient_external_id AS external_id, e.recipient_profile AS p, i.new_id
        FROM events e JOIN unnest($1::text[], $2::text[]) AS i(event_id, new_id) ON e.id = i.event_id
       WHERE e.recipient_profile IS NOT NULL
         AND jsonb_typeof(e.recipient_profile) = 'object'
         AND NOT EXISTS (
           SELECT 1 FROM jsonb_array_elements(
             CASE WHEN jsonb_typeof(e.recipient_profile->'addresses') = 'array'
                  THEN e.recipient_profile->'addresses' ELSE '[]'::jsonb END) a
            WHERE a->>'channel' = ANY($3::text[])))`;
  const params = [events.map((e) => e.eventId), events.map((e) => e.newRecipientId), [...skipChannels], now];
  const rows = await transactionOf(tx).$queryRawUnsafe<
    { id: string; external_id: string; created: boolean }[]
  >(
    `WITH ${input},
     updated AS (
       UPDATE recipients r SET
         locale = CASE WHEN i.p ? 'locale' THEN i.p->>'locale' ELSE r.locale END,
         timezone = CASE WHEN i.p ? 'timezone' THEN i.p->>'timezone' ELSE r.timezone END,
         region = CASE WHEN i.p ? 'region' THEN i.p->>'region' ELSE r.region END,
         attributes = CASE WHEN i.p ? 'attributes' THEN i.p->'attributes' ELSE r.attributes END,
         updated_at = $4
        FROM input i
       WHERE r.external_id = i.external_id
         AND (i.p ?| ARRAY['locale', 'timezone', 'region', 'attributes', 'addresses'])
       RETURNING r.id, r.external_id),
     untouched AS (
       SELECT r.id, r.external_id FROM recipients r JOIN input i ON r.external_id = i.external_id
        WHERE NOT (i.p ?| ARRAY['locale', 'timezone', 'region', 'attributes', 'addresses'])),
     inserted AS (
       INSERT INTO recipients (id, external_id, locale, timezone, region, attributes, created_at, updated_at)
       SELECT i.new_id, i.external_id, i.p->>'locale', i.p->>'timezone', i.p->>'region',
              coalesce(i.p->'attributes', '{}'::jsonb), $4, $4
         FROM input i
        WHERE NOT EXISTS (SELECT 1 FROM recipients r WHERE r.external_id = i.external_id)
       RETURNING id, external_id)
     SELECT id, external_id, false AS created FROM updated
     UNION ALL SELECT id, external_id, false FROM untouched
     UNION ALL SELECT id, external_id, true FROM inserted`,
    ...params,
  );
  // Addresses: the listed ones replace the person's (two statements: a row deleted and inserted
  // again in one statement would meet its own old version in the primary key).
  const withAddresses = `${input},
     targets AS (
       SELECT r.id, i.p->'addresses' AS addresses FROM input i JOIN recipients r ON r.external_id = i.external_id
        WHERE jsonb_typeof(i.p->'addresses') = 'array')`;
  await transactionOf(tx).$executeRawUnsafe(
    `WITH ${withAddresses} DELETE FROM addresses a USING targets t WHERE a.recipient_id = t.id`,
    ...params.slice(0, 3),
  );
  await transactionOf(tx).$executeRawUnsafe(
    `WITH ${withAddresses}
     INSERT INTO addresses (recipient_id, channel, value, enabled, created_at, updated_at)
     SELECT t.id, x.a->>'channel', x.a->>'value', coalesce((x.a->>'enabled')::boolean, true),
            $4::timestamptz + (x.n - 1) * interval '1 millisecond', $4
       FROM targets t, jsonb_array_elements(t.addresses) WITH ORDINALITY AS x(a, n)`,
    ...params,
  );
  return new Map(rows.map((r) => [r.external_id, { recipientId: r.id, created: r.created }]));
}
