-- ledger_on_staff_refund: asks back each part of a refund staff gave on a booking that keeps its
-- units, on the payment the part draws on (kept to owed; cause its kind: goodwill,
-- early_departure, no_show or reversal). Called by its trigger (ledger_after_staff_refund) and by the
-- backfill.
CREATE OR REPLACE FUNCTION ledger_on_staff_refund(r staff_refunds)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    part jsonb;
BEGIN
    FOR part IN SELECT * FROM jsonb_array_elements(r.parts) LOOP
        PERFORM ledger_post(r.booking_id, part->>'id', 'refund_asked', r.kind, 'kept', 'owed',
            (part->>'amount')::bigint, r.currency, r.id || '@' || (part->>'id'), NULL, r.actor, r.created_at);
    END LOOP;
END
$$;
