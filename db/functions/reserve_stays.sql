-- reserve_stays: reserve_stay for a batch of direct sales of one room type, in the caller's one
-- transaction (db/reserve_batch.go).
--
-- This file is the function's definition: applied after every migration, every time, it wins
-- over the migration that wrote it before (00027). Change it here, never in a migration; the
-- rules are in README.md beside it.
--
-- With a synchronous standby each commit holds the nights' locks until the standby answers, so
-- the reservations of a hot room type that queued meanwhile share one commit instead of paying
-- one each. p_bookings is a JSON array of {id, customer, created_by, idem, fingerprint, from,
-- to, quantity, hold_us, supplier, max_holds}, with each booking id once, and a customer under
-- a hold limit once. It returns one row per booking, with outcome as reserve_stay's, or 'error'
-- with the SQLSTATE and message that booking's statements raised (BF001: the customer is at the
-- hold limit); 'full_path' also when its nights are split between channels. Each booking runs in
-- subtransactions of its own, so one's failure writes nothing of it and leaves the others as
-- they are.
--
-- The order of the locks:
--
-- 0. The hold locks of the customers under a hold limit, by customer, before any row: the order
--    reserve_stay and the full path (db.Store.Reserve) take them in. Taken after the room type's
--    sale lock (as this function once did), a hold lock closed a cycle with a rule write at the
--    hotel (holding another room type's sale lock, waiting for this one) and a hold of the same
--    customer at that other room type (holding the hold lock, waiting for the rule write), which
--    PostgreSQL broke after deadlock_timeout by failing the booking (40P01). A hold lock that
--    times out fails that customer's booking alone (55P03: its caller goes on alone).
-- 1. The booking rows, all before any night (a release or an abandonment takes the booking
--    row, then the nights): first those of the bookings without a hold limit, in one statement,
--    by customer; then, by customer, each booking under a hold limit. The first booking row
--    takes the room type's sale lock (see reserve_stay); the rules are read again after the last.
-- 2. The nights of all the stays, in ascending order, in one statement; then each booking is
--    decided in check-in order on the rows as locked, and each night updated once.
-- 2b. Only when step 2 cannot be used (a lock timed out, or a night is split between channels):
--    booking by booking, as in reserve_stay, with the order argued there.
--
-- A booking whose nights fail in 2b (lock timeout, nights split between channels) has its row
-- deleted again (with the history row its insert wrote): as if never written. After one lock
-- timeout the rest of the batch waits 10 ms at most per lock, so a long transaction elsewhere
-- delays the batch by one lock timeout, not one per booking.
-- It raises BF002, rolling back everything, when a sale rule was set while the batch began.
--
-- The unit changes are recorded per booking, as if made one at a time: the history trigger
-- (record_inventory_change) skips an update made while bookflow.unit_history is 'written', whose
-- changes the transaction records itself; the availability outbox is written as before.
--
-- Its last act turns the lock timeout off for the commit, as reserve_stay does and for the
-- reason given there (the commit's wait in the queue of notifying commits is no lock's).
CREATE OR REPLACE FUNCTION reserve_stays(p_hotel text, p_room_type text, p_lock_timeout_ms bigint, p_bookings jsonb)
RETURNS TABLE (o_id text, o_outcome text, o_code text, o_message text) LANGUAGE plpgsql AS $$
DECLARE
    v_resource bigint;
    v_rules    boolean;
    v_watched  boolean;
    v_new      text[] := '{}';
    v_bulk     boolean := false;
    v_froms    timestamp[];
    v_tos      timestamp[];
    v_min      timestamp;
    v_max      timestamp;
    v_held     integer;
    b          record;
    v_limited  record;
    -- The customers whose hold lock was not had (step 0), with the error it raised.
    u_customer text[] := '{}';
    u_code     text[] := '{}';
    u_message  text[] := '{}';
    u_at       integer;
    n          record;
    v_ok       boolean;
    v_next     timestamp;
    v_currency text;
    v_units    integer;
    v_total    bigint;
    v_nights   jsonb;
    v_taken    integer;
    v_unpriced timestamp;
    -- The batch's nights as locked (step 2), and what the batch grants of each so far.
    k          integer := 0;
    j          integer;
    v_fast     boolean := true;
    n_start    timestamp[] := '{}';
    n_end      timestamp[] := '{}';
    n_reserved integer[] := '{}';
    n_total    integer[] := '{}';
    n_blocked  integer[] := '{}';
    n_closed   boolean[] := '{}';
    n_reason   text[] := '{}';
    n_rate     bigint[] := '{}';
    n_currency text[] := '{}';
    n_free     boolean[] := '{}';
    n_granted  integer[] := '{}';
    -- The unit changes to record, one per booking and night, and the bookings' verdicts.
    h_start    timestamp[] := '{}';
    h_before   integer[] := '{}';
    h_index    integer[] := '{}';
    h_booking  text[] := '{}';
    h_quantity integer[] := '{}';
    r_id       text[] := '{}';
    r_held     boolean[] := '{}';
    r_refusal  text[] := '{}';
    r_currency text[] := '{}';
    r_total    bigint[] := '{}';
    r_nights   jsonb[] := '{}';
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

    -- 0. The hold locks, by customer, before any row (see the order of the locks above).
    FOR v_limited IN SELECT DISTINCT x.customer FROM jsonb_to_recordset(p_bookings) AS x(customer text, max_holds integer)
        WHERE x.max_holds > 0 ORDER BY x.customer
    LOOP
        BEGIN
            PERFORM pg_advisory_xact_lock(hashtextextended('holds:' || v_limited.customer, 0));
        EXCEPTION WHEN OTHERS THEN
            u_customer := u_customer || v_limited.customer;
            u_code := u_code || SQLSTATE::text;
            u_message := u_message || SQLERRM;
            IF SQLSTATE = '55P03' THEN
                PERFORM set_config('lock_timeout', '10', true);
            END IF;
        END;
    END LOOP;

    -- 1. The booking rows. Those without a hold limit in one statement, by customer; should it
    -- fail (a lock timeout on a concurrent attempt of one of them), one by one as the others.
    BEGIN
        WITH written AS (
            INSERT INTO bookings (id, customer_id, created_by, idempotency_key, fingerprint, resource_id, unit_from,
                unit_to, quantity, status, expires_at, time_zone, policy, supplier_id)
            SELECT x.id, x.customer, x.created_by, x.idem, x.fingerprint, v_resource, x."from", x."to",
                x.quantity, 'HOLD', now() + x.hold_us * interval '1 microsecond', h.time_zone,
                jsonb_strip_nulls(jsonb_build_object('freeUntilHours', h.free_until_hours, 'feePercent', h.fee_percent,
                    'feeFixed', h.fee_fixed, 'feeCurrency', COALESCE(h.fee_currency, ''), 'noRefundHours', h.no_refund_hours,
                    'earlyDeparture', NULLIF(h.early_departure_refund, 'none'))),
                NULLIF(x.supplier, '')
            FROM jsonb_to_recordset(p_bookings) AS x(id text, customer text, created_by text, idem text,
                fingerprint text, hold_us bigint, supplier text, max_holds integer, "from" timestamp, "to" timestamp,
                quantity integer)
                JOIN hotels h ON h.id = p_hotel
            WHERE x.max_holds <= 0
            ORDER BY x.customer, x.id
            ON CONFLICT DO NOTHING
            RETURNING id)
        SELECT COALESCE(array_agg(id), '{}') INTO v_new FROM written;
        v_bulk := true;
        RETURN QUERY SELECT x.id, 'exists', NULL::text, NULL::text
            FROM jsonb_to_recordset(p_bookings) AS x(id text, max_holds integer)
            WHERE x.max_holds <= 0 AND NOT (x.id = ANY (v_new));
    EXCEPTION WHEN OTHERS THEN
        v_new := '{}';
        IF SQLSTATE = '55P03' THEN
            PERFORM set_config('lock_timeout', '10', true);
        END IF;
    END;
    FOR b IN SELECT * FROM jsonb_to_recordset(p_bookings) AS x(id text, customer text, created_by text, idem text,
            fingerprint text, hold_us bigint, supplier text, max_holds integer, "from" timestamp, "to" timestamp,
            quantity integer)
        WHERE NOT v_bulk OR x.max_holds > 0
        ORDER BY x.customer, x.id
    LOOP
        o_id := b.id;
        o_outcome := NULL; -- stays NULL for a booking written new, which step 2 answers
        o_code := NULL;
        o_message := NULL;
        BEGIN
            -- A customer whose hold lock step 0 did not have fails here, with the error it raised.
            u_at := array_position(u_customer, b.customer);
            IF b.max_holds > 0 AND u_at IS NOT NULL THEN
                RAISE EXCEPTION USING ERRCODE = u_code[u_at], MESSAGE = u_message[u_at];
            END IF;
            INSERT INTO bookings (id, customer_id, created_by, idempotency_key, fingerprint, resource_id, unit_from,
                unit_to, quantity, status, expires_at, time_zone, policy, supplier_id)
            SELECT b.id, b.customer, b.created_by, b.idem, b.fingerprint, v_resource, b."from", b."to",
                b.quantity, 'HOLD', now() + b.hold_us * interval '1 microsecond', h.time_zone,
                jsonb_strip_nulls(jsonb_build_object('freeUntilHours', h.free_until_hours, 'feePercent', h.fee_percent,
                    'feeFixed', h.fee_fixed, 'feeCurrency', COALESCE(h.fee_currency, ''), 'noRefundHours', h.no_refund_hours,
                    'earlyDeparture', NULLIF(h.early_departure_refund, 'none'))),
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
        PERFORM set_config('lock_timeout', '0', true); -- the commit's wait is no lock's (see above)
        RETURN;
    END IF;

    -- A new statement after the sale lock: a rule committed meanwhile is seen here.
    IF EXISTS (SELECT 1 FROM sale_rules s WHERE s.hotel_id = p_hotel AND s.cancelled_at IS NULL AND s.expired_at IS NULL) THEN
        RAISE EXCEPTION USING ERRCODE = 'BF002', MESSAGE = 'a sale rule was set while the sale began';
    END IF;

    -- 2. The nights: every night of the batch's stays locked at once, in ascending order, the
    -- bookings decided one after another in check-in order on the rows as locked, then each
    -- night updated once (a row updated once per booking grows a chain of versions every later
    -- booking's lookup walks) and the unit changes recorded per booking, as one at a time
    -- would have. A lock that times out, or a night split between channels (allocations are
    -- written under the nights' lock), sends the batch to step 2b instead.
    SELECT array_agg(x."from"), array_agg(x."to"), min(x."from"), max(x."to") INTO v_froms, v_tos, v_min, v_max
    FROM jsonb_to_recordset(p_bookings) AS x(id text, "from" timestamp, "to" timestamp) WHERE x.id = ANY (v_new);
    BEGIN
        FOR n IN SELECT i.unit_start, COALESCE(i.unit_end, i.unit_start + interval '1 day') AS unit_end,
                i.total, i.reserved, i.blocked, i.closed_at IS NOT NULL AS closed, i.closed_reason, i.rate, i.currency, i.free
            FROM inventory i
            WHERE i.resource_id = v_resource AND i.unit_start >= v_min AND i.unit_start < v_max
                AND EXISTS (SELECT 1 FROM unnest(v_froms, v_tos) AS x(f, t) WHERE i.unit_start >= x.f AND i.unit_start < x.t)
            ORDER BY i.unit_start FOR UPDATE
        LOOP
            k := k + 1;
            n_start[k] := n.unit_start;
            n_end[k] := n.unit_end;
            n_total[k] := n.total;
            n_reserved[k] := n.reserved;
            n_blocked[k] := n.blocked;
            n_closed[k] := n.closed;
            n_reason[k] := n.closed_reason;
            n_rate[k] := n.rate;
            n_currency[k] := n.currency;
            n_free[k] := n.free;
            n_granted[k] := 0;
        END LOOP;
        v_fast := NOT EXISTS (SELECT 1 FROM allocations a WHERE a.resource_id = v_resource AND a.unit_start = ANY (n_start));
    EXCEPTION WHEN OTHERS THEN
        v_fast := false;
        IF SQLSTATE = '55P03' THEN
            PERFORM set_config('lock_timeout', '10', true);
        END IF;
    END;
    IF v_fast THEN
        FOR b IN SELECT * FROM jsonb_to_recordset(p_bookings) AS x(id text, "from" timestamp, "to" timestamp, quantity integer)
            WHERE x.id = ANY (v_new)
            ORDER BY x."from", x.id
        LOOP
            -- As reserve_stay decides, on the nights as this batch has left them.
            v_ok := true;
            v_next := b."from";
            v_currency := NULL;
            v_units := 0;
            v_total := 0;
            v_nights := '[]';
            v_unpriced := NULL;
            FOR j IN 1..k LOOP
                CONTINUE WHEN n_start[j] < b."from" OR n_start[j] >= b."to";
                IF (n_rate[j] IS NULL OR (n_rate[j] = 0 AND NOT n_free[j])) AND v_unpriced IS NULL THEN
                    v_unpriced := n_start[j];
                END IF;
                IF n_start[j] <> v_next OR n_closed[j] OR v_unpriced IS NOT NULL
                    OR n_total[j] - n_reserved[j] - n_granted[j] - n_blocked[j] < b.quantity
                    OR n_currency[j] IS DISTINCT FROM COALESCE(v_currency, n_currency[j]) THEN
                    v_ok := false;
                END IF;
                v_next := n_end[j];
                v_currency := n_currency[j];
                v_units := v_units + 1;
                v_total := v_total + n_rate[j] * b.quantity;
                v_nights := v_nights || jsonb_build_object('date', to_char(n_start[j], 'YYYY-MM-DD'), 'amount', n_rate[j] * b.quantity);
            END LOOP;
            v_ok := v_ok AND v_units > 0 AND v_next = b."to";
            IF v_ok THEN
                FOR j IN 1..k LOOP
                    CONTINUE WHEN n_start[j] < b."from" OR n_start[j] >= b."to";
                    h_start := h_start || n_start[j];
                    h_index := h_index || j;
                    h_before := h_before || (n_reserved[j] + n_granted[j]);
                    h_booking := h_booking || b.id;
                    h_quantity := h_quantity || b.quantity;
                    n_granted[j] := n_granted[j] + b.quantity;
                END LOOP;
            END IF;
            r_id := r_id || b.id;
            r_held := r_held || v_ok;
            r_refusal := r_refusal || CASE WHEN NOT v_ok AND v_unpriced IS NOT NULL
                THEN 'no rate is set for the night of ' || to_char(v_unpriced, 'YYYY-MM-DD') END;
            r_currency := r_currency || v_currency;
            r_total := r_total || v_total;
            r_nights := r_nights || v_nights;
        END LOOP;

        -- The history trigger leaves this statement's unit changes to the INSERT after it.
        PERFORM set_config('bookflow.unit_history', 'written', true);
        UPDATE inventory i SET reserved = i.reserved + g.q
        FROM unnest(n_start, n_granted) AS g(s, q)
        WHERE i.resource_id = v_resource AND i.unit_start = g.s AND g.q > 0;
        PERFORM set_config('bookflow.unit_history', '', true);
        INSERT INTO inventory_changes (resource_id, unit_start, change, reserved_before, reserved_after, total_before,
            total_after, closed_before, closed_after, closed_reason, blocked_before, blocked_after, booking_id)
        SELECT v_resource, h.s, 'updated', h.before, h.before + h.q, n_total[h.j], n_total[h.j], false, false,
            n_reason[h.j], n_blocked[h.j], n_blocked[h.j], h.booking
        FROM unnest(h_start, h_before, h_index, h_booking, h_quantity) WITH ORDINALITY AS h(s, before, j, booking, q, o)
        ORDER BY h.o;
        UPDATE bookings bk SET status = CASE WHEN r.held THEN bk.status ELSE 'REJECTED' END,
            refusal = CASE WHEN r.held THEN bk.refusal ELSE r.refusal END,
            currency = CASE WHEN r.held THEN r.currency ELSE bk.currency END,
            total = CASE WHEN r.held THEN r.total ELSE bk.total END,
            nightly_rates = CASE WHEN r.held THEN r.nights ELSE bk.nightly_rates END
        FROM unnest(r_id, r_held, r_refusal, r_currency, r_total, r_nights) AS r(id, held, refusal, currency, total, nights)
        WHERE bk.id = r.id AND bk.id = ANY (r_id); -- by the primary key, not a scan
        RETURN QUERY SELECT r.id, CASE WHEN r.held THEN 'held' ELSE 'rejected' END, NULL::text, NULL::text
            FROM unnest(r_id, r_held) AS r(id, held);
        PERFORM set_config('lock_timeout', '0', true); -- the commit's wait is no lock's (see above)
        RETURN;
    END IF;

    -- 2b. Booking by booking, each in a subtransaction of its own, in the order of their
    -- check-ins: each locks its nights in ascending order, and a booking's nights not locked
    -- yet by an earlier one all come after those, so the batch locks them in ascending order.
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
    PERFORM set_config('lock_timeout', '0', true); -- the commit's wait is no lock's (see above)
END $$;
