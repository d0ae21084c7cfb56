-- +goose Up

-- reserve_stays is reserve_stay (00018, 00020) for a batch of direct sales of one room type, in
-- the caller's one transaction: with a synchronous standby each commit holds the nights' locks
-- until the standby answers, so the reservations of a hot room type that queued meanwhile share
-- one commit instead of paying one each (db/reserve_batch.go). p_bookings is a JSON array of
-- {id, customer, created_by, idem, fingerprint, from, to, quantity, hold_us, supplier,
-- max_holds}, at most one per customer. It returns one row per booking, with outcome as
-- reserve_stay's, or 'error' with the SQLSTATE and message that booking's statements raised
-- (BF001: the customer is at the hold limit); 'full_path' also when its nights are split between
-- channels. Each booking runs in subtransactions of its own, so one's failure writes nothing of
-- it and leaves the others as they are.
--
-- The order of the locks is every writer's order, so a batch deadlocks with nothing:
--
-- 1. Customers' hold locks and booking rows, by customer: all before any night (a release or an
--    abandonment takes the booking row, then the nights). The first booking row takes the room
--    type's sale lock (see 00020); the rules are read again after the last.
-- 2. The nights, booking by booking in the order of their check-ins: each locks its nights in
--    ascending order, and a booking's nights not locked yet by an earlier one all come after
--    those, so the batch as a whole locks them in ascending order too.
--
-- A booking whose nights fail (lock timeout, nights split between channels) has its row deleted
-- again (with the history row its insert wrote): as if never written. After one lock timeout the
-- rest of the batch waits 10 ms at most per lock, so a long transaction elsewhere delays the
-- batch by one lock timeout, not one per booking.
-- It raises BF002, rolling back everything, when a sale rule was set while the batch began.
-- +goose StatementBegin
CREATE FUNCTION reserve_stays(p_hotel text, p_room_type text, p_lock_timeout_ms bigint, p_bookings jsonb)
RETURNS TABLE (o_id text, o_outcome text, o_code text, o_message text) LANGUAGE plpgsql AS $$
DECLARE
    v_resource bigint;
    v_rules    boolean;
    v_watched  boolean;
    v_new      text[] := '{}';
    v_held     integer;
    b          record;
    n          record;
    v_ok       boolean;
    v_next     timestamp;
    v_currency text;
    v_units    integer;
    v_total    bigint;
    v_nights   jsonb;
    v_taken    integer;
    v_unpriced timestamp;
BEGIN
    PERFORM set_config('lock_timeout', p_lock_timeout_ms::text, true);

    SELECT r.id,
        EXISTS (SELECT 1 FROM sale_rules s WHERE s.hotel_id = p_hotel AND s.cancelled_at IS NULL AND s.expired_at IS NULL),
        EXISTS (SELECT 1 FROM stock_alert_thresholds t WHERE t.hotel_id = p_hotel AND t.room_type = p_room_type)
    INTO v_resource, v_rules, v_watched
    FROM resources r WHERE r.hotel_id = p_hotel AND r.code = p_room_type;
    IF NOT FOUND OR v_rules OR v_watched THEN
        RETURN QUERY SELECT x.id, CASE WHEN v_resource IS NULL THEN 'unknown' ELSE 'full_path' END, NULL::text, NULL::text
            FROM jsonb_to_recordset(p_bookings) AS x(id text);
        RETURN;
    END IF;

    -- 1. The booking rows.
    FOR b IN SELECT * FROM jsonb_to_recordset(p_bookings) AS x(id text, customer text, created_by text, idem text,
            fingerprint text, hold_us bigint, supplier text, max_holds integer, "from" timestamp, "to" timestamp,
            quantity integer)
        ORDER BY x.customer, x.id
    LOOP
        o_id := b.id;
        o_outcome := NULL; -- stays NULL for a booking written new, which step 2 answers
        o_code := NULL;
        o_message := NULL;
        BEGIN
            IF b.max_holds > 0 THEN
                PERFORM pg_advisory_xact_lock(hashtextextended('holds:' || b.customer, 0));
            END IF;
            INSERT INTO bookings (id, customer_id, created_by, idempotency_key, fingerprint, resource_id, unit_from,
                unit_to, quantity, status, expires_at, time_zone, policy, supplier_id)
            SELECT b.id, b.customer, b.created_by, b.idem, b.fingerprint, v_resource, b."from", b."to",
                b.quantity, 'HOLD', now() + b.hold_us * interval '1 microsecond', h.time_zone,
                jsonb_build_object('freeUntilHours', h.free_until_hours, 'feePercent', h.fee_percent,
                    'feeFixed', h.fee_fixed, 'feeCurrency', COALESCE(h.fee_currency, ''), 'noRefundHours', h.no_refund_hours),
                NULLIF(b.supplier, '')
            FROM hotels h WHERE h.id = p_hotel
            ON CONFLICT DO NOTHING;
            IF NOT FOUND THEN
                o_outcome := 'exists';
            ELSE
                IF b.max_holds > 0 THEN
                    SELECT count(*) INTO v_held FROM bookings
                    WHERE customer_id = b.customer AND created_by = b.customer AND status = 'HOLD' AND expires_at > now()
                        AND id <> b.id;
                    IF v_held >= b.max_holds THEN
                        RAISE EXCEPTION USING ERRCODE = 'BF001', MESSAGE = format('customer already has %s unexpired holds', v_held);
                    END IF;
                END IF;
                v_new := v_new || b.id; -- last: nothing after it can fail
            END IF;
        EXCEPTION WHEN OTHERS THEN
            o_outcome := 'error';
            o_code := SQLSTATE;
            o_message := SQLERRM;
            IF SQLSTATE = '55P03' THEN
                PERFORM set_config('lock_timeout', '10', true);
            END IF;
        END;
        IF o_outcome IS NOT NULL THEN
            RETURN NEXT;
        END IF;
    END LOOP;
    IF cardinality(v_new) = 0 THEN
        RETURN;
    END IF;

    -- A new statement after the sale lock: a rule committed meanwhile is seen here.
    IF EXISTS (SELECT 1 FROM sale_rules s WHERE s.hotel_id = p_hotel AND s.cancelled_at IS NULL AND s.expired_at IS NULL) THEN
        RAISE EXCEPTION USING ERRCODE = 'BF002', MESSAGE = 'a sale rule was set while the sale began';
    END IF;

    -- 2. The nights, by check-in.
    FOR b IN SELECT * FROM jsonb_to_recordset(p_bookings) AS x(id text, "from" timestamp, "to" timestamp, quantity integer)
        WHERE x.id = ANY (v_new)
        ORDER BY x."from", x.id
    LOOP
        o_id := b.id;
        o_code := NULL;
        o_message := NULL;
        BEGIN
            PERFORM set_config('bookflow.booking_id', b.id, true);
            v_ok := true;
            v_next := b."from";
            v_currency := NULL;
            v_units := 0;
            v_total := 0;
            v_nights := '[]';
            v_unpriced := NULL;
            FOR n IN SELECT i.unit_start, COALESCE(i.unit_end, i.unit_start + interval '1 day') AS unit_end,
                    i.total, i.reserved, i.blocked, i.closed_at, i.rate, i.currency, i.free
                FROM inventory i
                WHERE i.resource_id = v_resource AND i.unit_start >= b."from" AND i.unit_start < b."to"
                ORDER BY i.unit_start FOR UPDATE
            LOOP
                IF (n.rate IS NULL OR (n.rate = 0 AND NOT n.free)) AND v_unpriced IS NULL THEN
                    v_unpriced := n.unit_start;
                END IF;
                IF n.unit_start <> v_next OR n.closed_at IS NOT NULL OR v_unpriced IS NOT NULL
                    OR n.total - n.reserved - n.blocked < b.quantity
                    OR n.currency IS DISTINCT FROM COALESCE(v_currency, n.currency) THEN
                    v_ok := false;
                END IF;
                v_next := n.unit_end;
                v_currency := n.currency;
                v_units := v_units + 1;
                v_total := v_total + n.rate * b.quantity;
                v_nights := v_nights || jsonb_build_object('date', to_char(n.unit_start, 'YYYY-MM-DD'), 'amount', n.rate * b.quantity);
            END LOOP;
            IF NOT (v_ok AND v_units > 0 AND v_next = b."to") THEN
                UPDATE bookings SET status = 'REJECTED',
                    refusal = CASE WHEN v_unpriced IS NOT NULL THEN 'no rate is set for the night of ' || to_char(v_unpriced, 'YYYY-MM-DD') END
                WHERE id = b.id;
                o_outcome := 'rejected';
            ELSE
                UPDATE inventory SET reserved = reserved + b.quantity
                WHERE resource_id = v_resource AND unit_start >= b."from" AND unit_start < b."to"
                    AND NOT EXISTS (SELECT 1 FROM allocations a WHERE a.resource_id = v_resource
                        AND a.unit_start >= b."from" AND a.unit_start < b."to");
                GET DIAGNOSTICS v_taken = ROW_COUNT;
                IF v_taken = 0 THEN
                    RAISE EXCEPTION USING ERRCODE = 'BF002', MESSAGE = 'the stay has nights split between channels';
                ELSIF v_taken <> v_units THEN
                    RAISE EXCEPTION 'took % of % nights of resource %: refusing a partial reservation', v_taken, v_units, v_resource;
                END IF;
                UPDATE bookings SET currency = v_currency, total = v_total, nightly_rates = v_nights WHERE id = b.id;
                o_outcome := 'held';
            END IF;
        EXCEPTION WHEN OTHERS THEN
            o_outcome := CASE WHEN SQLSTATE = 'BF002' THEN 'full_path' ELSE 'error' END;
            o_code := SQLSTATE;
            o_message := SQLERRM;
            IF SQLSTATE = '55P03' THEN
                PERFORM set_config('lock_timeout', '10', true);
            END IF;
            -- As if never written: the row from step 1, and the history row its insert wrote.
            DELETE FROM booking_changes c WHERE c.booking_id = b.id;
            DELETE FROM bookings WHERE id = b.id;
        END;
        RETURN NEXT;
    END LOOP;
END $$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION reserve_stays(text, text, bigint, jsonb);
