-- reserve_stay: a direct sale's whole reservation as one statement (db.Store.reserveDirect).
--
-- This file is the function's definition: applied after every migration, every time, it wins
-- over the migrations that wrote it before (00018, 00020, 00025). Change it here, never in a
-- migration; the rules are in README.md beside it.
--
-- It is one statement so the client makes one round trip while the nights are locked (on a hot
-- room type, lock hold time is throughput). It does what db.Store.Reserve's statements do for a
-- sale without a channel, and returns:
--
--   'unknown'    no such room type; nothing written
--   'full_path'  the hotel has sale rules in force or a low-stock threshold on the room type:
--                the caller judges them in Go; nothing written
--   'exists'     a booking with this id exists (a retry): nothing changed
--   'rejected'   a night is missing, closed, unpriced or short: the booking is stored REJECTED
--   'held'       the nights were taken and the booking stored priced
--
-- It raises SQLSTATE BF001 when the customer is at their hold limit, and BF002 when a night is
-- split between channels (allocations, found under the lock) or a sale rule was set while the
-- sale began: the caller's full path handles those; the raise rolls everything back.
--
-- The order of the locks, as the full path's: the customer's hold lock (only under a hold
-- limit), the booking row, the room type's sale lock (the booking row's foreign key), then the
-- nights in ascending order. The booking row comes first: a retry finds it on the primary key
-- without waiting for the nights, a customer over the hold limit is refused before any night is
-- locked, and like every other writer of a booking it takes the booking's row before the
-- nights (no deadlock with a release or an abandonment). The nights are then locked and decided
-- on as the lock returns them: in READ COMMITTED a row locked FOR UPDATE is read in its latest
-- committed version.
--
-- * A sale rule applies from the moment it is answered. A rule write locks its hotel's and its
--   room types' rows FOR UPDATE first (lockSaleRules, db/salerules.go); writing the booking row
--   locks the room type's row FOR KEY SHARE (the foreign key's check, at the end of the INSERT),
--   and the rules are read again in a later statement, which sees every rule committed before
--   that lock was granted. So a rule write waits for the reservations in flight at its hotel,
--   and the ones after it see the rule; reservations take no lock of their own for it. The
--   rules were also read in the first statement, before the lock, to choose this path: found
--   there now, the raise (BF002) sends the sale to the full path, rolling this one back.
-- * Blocked rooms are not for sale: a night has total - reserved - blocked left.
-- * A night with no rate, or a rate of 0 not set on purpose (free), is refused: the booking is
--   stored REJECTED with the night named as its refusal.
-- * The policy a booking is held under says what an early departure gives back of the nights
--   not stayed (earlyDeparture, absent for none), as policyJSON does on the full path
--   (db/inventory.go).
-- * The lock timeout bounds waits for rows and locks, not the commit: every return that wrote
--   something turns it off. A transaction that notified (the availability outbox's trigger
--   does) queues at commit for a lock PostgreSQL takes for every notifying commit of the whole
--   server, held through each one's WAL flush; under load that wait alone passed the batch's
--   50 ms bound on 3-4 % of reservations (TestSlowReservationUnderLoad), which were then undone
--   and run again, and it could pass the store's bound and fail an attempt whose work was done.
CREATE OR REPLACE FUNCTION reserve_stay(
    p_booking text, p_customer text, p_created_by text, p_idempotency_key text, p_fingerprint text,
    p_hotel text, p_room_type text, p_from timestamp, p_to timestamp, p_quantity integer,
    p_hold_us bigint, p_supplier text, p_max_holds integer, p_lock_timeout_ms bigint)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    v_resource bigint;
    v_rules    boolean;
    v_watched  boolean;
    v_held     integer;
    n          record;
    v_ok       boolean := true;
    v_next     timestamp := p_from; -- where the next night must start for the nights to tile the stay
    v_currency text;
    v_units    integer := 0;
    v_total    bigint := 0;
    v_nights   jsonb := '[]';
    v_taken    integer;
    v_unpriced timestamp; -- the first night with no rate (or 0, not free)
BEGIN
    PERFORM set_config('lock_timeout', p_lock_timeout_ms::text, true),
        set_config('bookflow.booking_id', p_booking, true);

    SELECT r.id,
        EXISTS (SELECT 1 FROM sale_rules s WHERE s.hotel_id = p_hotel AND s.cancelled_at IS NULL AND s.expired_at IS NULL),
        EXISTS (SELECT 1 FROM stock_alert_thresholds t WHERE t.hotel_id = p_hotel AND t.room_type = p_room_type)
    INTO v_resource, v_rules, v_watched
    FROM resources r WHERE r.hotel_id = p_hotel AND r.code = p_room_type;
    IF NOT FOUND THEN
        RETURN 'unknown';
    END IF;
    IF v_rules OR v_watched THEN
        RETURN 'full_path';
    END IF;

    -- One new hold at a time per customer under a limit (as lockCustomerHolds, db/reserve.go):
    -- the first lock taken, before the booking row and the room type's sale lock.
    IF p_max_holds > 0 THEN
        PERFORM pg_advisory_xact_lock(hashtextextended('holds:' || p_customer, 0));
    END IF;

    -- The booking row first; its foreign key's check takes the room type's sale lock (see above).
    INSERT INTO bookings (id, customer_id, created_by, idempotency_key, fingerprint, resource_id, unit_from,
        unit_to, quantity, status, expires_at, time_zone, policy, supplier_id)
    SELECT p_booking, p_customer, p_created_by, p_idempotency_key, p_fingerprint, v_resource, p_from, p_to,
        p_quantity, 'HOLD', now() + p_hold_us * interval '1 microsecond', h.time_zone,
        jsonb_strip_nulls(jsonb_build_object('freeUntilHours', h.free_until_hours, 'feePercent', h.fee_percent,
            'feeFixed', h.fee_fixed, 'feeCurrency', COALESCE(h.fee_currency, ''), 'noRefundHours', h.no_refund_hours,
            'earlyDeparture', NULLIF(h.early_departure_refund, 'none'))),
        NULLIF(p_supplier, '')
    FROM hotels h WHERE h.id = p_hotel
    ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN
        PERFORM set_config('lock_timeout', '0', true); -- the commit's wait is no lock's (see above)
        RETURN 'exists';
    END IF;

    -- A new statement under the lock: a rule committed meanwhile is seen here.
    IF EXISTS (SELECT 1 FROM sale_rules s WHERE s.hotel_id = p_hotel AND s.cancelled_at IS NULL AND s.expired_at IS NULL) THEN
        RAISE EXCEPTION USING ERRCODE = 'BF002', MESSAGE = 'a sale rule was set while the sale began';
    END IF;

    IF p_max_holds > 0 THEN
        SELECT count(*) INTO v_held FROM bookings
        WHERE customer_id = p_customer AND created_by = p_customer AND status = 'HOLD' AND expires_at > now()
            AND id <> p_booking;
        IF v_held >= p_max_holds THEN
            RAISE EXCEPTION USING ERRCODE = 'BF001', MESSAGE = format('customer already has %s unexpired holds', v_held);
        END IF;
    END IF;

    FOR n IN SELECT i.unit_start, COALESCE(i.unit_end, i.unit_start + interval '1 day') AS unit_end,
            i.total, i.reserved, i.blocked, i.closed_at, i.rate, i.currency, i.free
        FROM inventory i
        WHERE i.resource_id = v_resource AND i.unit_start >= p_from AND i.unit_start < p_to
        ORDER BY i.unit_start FOR UPDATE
    LOOP
        IF (n.rate IS NULL OR (n.rate = 0 AND NOT n.free)) AND v_unpriced IS NULL THEN
            v_unpriced := n.unit_start;
        END IF;
        IF n.unit_start <> v_next OR n.closed_at IS NOT NULL OR v_unpriced IS NOT NULL
            OR n.total - n.reserved - n.blocked < p_quantity OR n.currency IS DISTINCT FROM COALESCE(v_currency, n.currency) THEN
            v_ok := false;
        END IF;
        v_next := n.unit_end;
        v_currency := n.currency;
        v_units := v_units + 1;
        v_total := v_total + n.rate * p_quantity;
        v_nights := v_nights || jsonb_build_object('date', to_char(n.unit_start, 'YYYY-MM-DD'), 'amount', n.rate * p_quantity);
    END LOOP;
    IF NOT (v_ok AND v_units > 0 AND v_next = p_to) THEN
        UPDATE bookings SET status = 'REJECTED',
            refusal = CASE WHEN v_unpriced IS NOT NULL THEN 'no rate is set for the night of ' || to_char(v_unpriced, 'YYYY-MM-DD') END
        WHERE id = p_booking;
        PERFORM set_config('lock_timeout', '0', true); -- the commit's wait is no lock's (see above)
        RETURN 'rejected';
    END IF;

    UPDATE inventory SET reserved = reserved + p_quantity
    WHERE resource_id = v_resource AND unit_start >= p_from AND unit_start < p_to
        AND NOT EXISTS (SELECT 1 FROM allocations a WHERE a.resource_id = v_resource AND a.unit_start >= p_from AND a.unit_start < p_to);
    GET DIAGNOSTICS v_taken = ROW_COUNT;
    IF v_taken = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'BF002', MESSAGE = 'the stay has nights split between channels';
    ELSIF v_taken <> v_units THEN
        RAISE EXCEPTION 'took % of % nights of resource %: refusing a partial reservation', v_taken, v_units, v_resource;
    END IF;

    UPDATE bookings SET currency = v_currency, total = v_total, nightly_rates = v_nights WHERE id = p_booking;
    PERFORM set_config('lock_timeout', '0', true); -- the commit's wait is no lock's (see above)
    RETURN 'held';
END $$;
