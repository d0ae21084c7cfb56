-- ledger_backfill: posts, once, the ledger entries of the money rows written before the ledger
-- existed (migration 00033), replaying them in the order they happened through the same
-- functions the triggers call; entries already posted are left as they are. db.Migrate calls it
-- while money_ledger_backfill is empty, then fills it. Returns how many entries it posted.
--
-- What the old rows do not keep is read as follows: a refund attempt that ended was sent at its
-- creation and ended at its last update, except one the per-payment bound refused (failed, never
-- sent to the provider); a cancelled booking's refund due (REFUNDING or REFUNDED) was asked when
-- its first refund attempt was made (its last update when it made none). A channel's sale on
-- account was sold when its hold was confirmed (its booking_changes row), at its price less the
-- amendments applied since (each posted on its own), and moved back when it was cancelled.
CREATE OR REPLACE FUNCTION ledger_backfill()
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    e record;
    rf refunds;
    am booking_amendments;
    bk bookings;
    posted_before bigint := (SELECT count(*) FROM money_ledger);
BEGIN
    FOR e IN
        SELECT * FROM (
            SELECT COALESCE(p.succeeded_at, p.created_at) AS at, 1 AS ord, 'payment' AS what, p.payment_id AS id
            FROM payments p WHERE p.status = 'succeeded'
            UNION ALL
            SELECT m.created_at, 2, 'amendment-asked', m.id::text FROM booking_amendments m
            UNION ALL
            SELECT COALESCE(m.decided_at, m.created_at), 3, 'amendment', m.id::text FROM booking_amendments m
            WHERE m.status <> 'BALANCE_DUE'
            UNION ALL
            SELECT r.created_at, 4, 'staff-refund', r.id FROM staff_refunds r
            UNION ALL
            SELECT c.at, 5, 'price-change', c.id::text FROM price_changes c
            UNION ALL
            SELECT COALESCE((SELECT min(f.created_at) FROM refunds f WHERE starts_with(f.id, b.id || '/refund')),
                b.updated_at), 6, 'cancel', b.id
            FROM bookings b WHERE b.status IN ('REFUNDING', 'REFUNDED') AND b.refund_due > 0
            UNION ALL
            SELECT f.created_at, 7, 'refund-sent', f.id FROM refunds f
            WHERE NOT (f.status = 'failed' AND f.provider_refund_id IS NULL
                AND COALESCE(f.last_error, '') LIKE 'a refund of % would give back more than %')
            UNION ALL
            SELECT f.updated_at, 8, 'refund-ended', f.id FROM refunds f
            WHERE f.status IN ('succeeded', 'failed') AND f.method = 'provider' AND NOT starts_with(f.id, 'manual/')
                AND f.id NOT LIKE '%/0'
            UNION ALL
            -- after an amendment applied at the same instant (in the price the sale posts)
            SELECT c.at, 9, 'on-account', c.booking_id FROM booking_changes c JOIN bookings b ON b.id = c.booking_id
            WHERE c.from_status = 'HOLD' AND c.to_status = 'CONFIRMED' AND b.channel_id IS NOT NULL
                AND b.payment_id IS NULL
            UNION ALL
            SELECT c.at, 10, 'on-account-cancel', c.booking_id FROM booking_changes c JOIN bookings b ON b.id = c.booking_id
            WHERE c.from_status IN ('CONFIRMED', 'COMPLETED') AND c.to_status = 'CANCELLED' AND b.channel_id IS NOT NULL
        ) x ORDER BY at, ord, id
    LOOP
        CASE e.what
        WHEN 'payment' THEN
            PERFORM ledger_on_payment(p, NULL, e.at) FROM payments p WHERE p.payment_id = e.id;
        WHEN 'amendment-asked' THEN
            -- An amendment that waited for its balance was asked as a balance due first.
            SELECT * INTO am FROM booking_amendments WHERE id = e.id::bigint;
            IF am.status IN ('BALANCE_DUE', 'LAPSED') OR am.balance_payment_id IS NOT NULL THEN
                am.status := 'BALANCE_DUE';
                am.balance_payment_id := NULL;
                PERFORM ledger_on_amendment(am, NULL, NULL, e.at);
            END IF;
        WHEN 'amendment' THEN
            SELECT * INTO am FROM booking_amendments WHERE id = e.id::bigint;
            PERFORM ledger_on_amendment(am, CASE WHEN am.status = 'LAPSED' OR am.balance_payment_id IS NOT NULL
                THEN 'BALANCE_DUE' END, NULL, e.at);
            PERFORM ledger_on_channel_amendment(am, NULL, e.at);
        WHEN 'staff-refund' THEN
            PERFORM ledger_on_staff_refund(r) FROM staff_refunds r WHERE r.id = e.id;
        WHEN 'price-change' THEN
            PERFORM ledger_on_price_change(c) FROM price_changes c WHERE c.id = e.id::bigint;
        WHEN 'cancel' THEN
            -- Drawn as when it moved to REFUNDING, also for a booking REFUNDED since (whose refund
            -- may have been resolved by hand before resolutions were recorded: no row says so).
            -- Before its first attempt, so the attempts find it owed and ask nothing unplanned.
            SELECT * INTO bk FROM bookings WHERE id = e.id;
            bk.status := 'REFUNDING';
            PERFORM ledger_on_booking(bk, bk.payment_id, NULL, e.at);
        WHEN 'refund-sent' THEN
            SELECT * INTO rf FROM refunds WHERE id = e.id;
            IF rf.method = 'provider' AND rf.status IN ('succeeded', 'failed') AND NOT starts_with(rf.id, 'manual/')
                AND rf.id NOT LIKE '%/0' THEN
                rf.status := 'requested';
            END IF;
            PERFORM ledger_on_refund(rf, NULL, e.at);
        WHEN 'on-account' THEN
            SELECT * INTO bk FROM bookings WHERE id = e.id;
            bk.status := 'CONFIRMED';
            bk.total := bk.total - COALESCE((SELECT sum(m.difference) FROM booking_amendments m
                WHERE m.booking_id = bk.id AND m.status = 'APPLIED' AND COALESCE(m.decided_at, m.created_at) > e.at), 0);
            PERFORM ledger_on_booking(bk, bk.payment_id, 'HOLD', e.at);
        WHEN 'on-account-cancel' THEN
            SELECT * INTO bk FROM bookings WHERE id = e.id;
            bk.status := 'CANCELLED';
            PERFORM ledger_on_booking(bk, bk.payment_id, 'CONFIRMED', e.at);
        WHEN 'refund-ended' THEN
            SELECT * INTO rf FROM refunds WHERE id = e.id;
            PERFORM ledger_on_refund(rf, 'requested', e.at);
        END CASE;
    END LOOP;
    RETURN (SELECT count(*) FROM money_ledger) - posted_before;
END
$$;
