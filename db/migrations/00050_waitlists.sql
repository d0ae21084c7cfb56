-- +goose Up

-- Waitlists (issue 36, docs/waitlists.md). Every statement may run twice: the upgrade tests
-- apply it to an old schema first, for today's store (db.MigrateToForTodaysStore).
--
-- An entry is a customer waiting for a sold-out product: quantity units of one resource (a
-- hotel's room type by the night, under a rate plan, or a venue's resource for a slot) over
-- [unit_from, unit_to). It is a row, not a workflow, so that a flash sale's losers join cheaply.
-- First come, first served: id order per resource.
-- status: waiting, offered (a HOLD booking holds the units for it: offer_booking_id), closed
-- (closed_reason says why). channel_id and agent_id: an agent's entry is offered on its channel.
CREATE TABLE IF NOT EXISTS waitlist_entries (
    id               bigserial   PRIMARY KEY,
    customer_id      text        NOT NULL,
    created_by       text        NOT NULL,
    channel_id       text        REFERENCES channels (id),
    agent_id         text        REFERENCES agents (id),
    resource_id      bigint      NOT NULL REFERENCES resources (id),
    unit_from        timestamp   NOT NULL,
    unit_to          timestamp   NOT NULL,
    quantity         integer     NOT NULL CHECK (quantity > 0),
    rate_plan        text,
    status           text        NOT NULL DEFAULT 'waiting' CHECK (status IN ('waiting', 'offered', 'closed')),
    offers           integer     NOT NULL DEFAULT 0,
    offer_booking_id text,
    closed_reason    text        CHECK (closed_reason IN ('booked', 'booked_elsewhere', 'left', 'declined',
                                                          'offer_expired', 'window_closed', 'erased')),
    created_at       timestamptz NOT NULL DEFAULT now(),
    closed_at        timestamptz,
    CHECK (unit_to > unit_from),
    CHECK ((status = 'closed') = (closed_reason IS NOT NULL))
);
-- What a give-back reads: the open entries of a resource, in the order they joined.
CREATE INDEX IF NOT EXISTS waitlist_entries_waiting ON waitlist_entries (resource_id, id) WHERE status = 'waiting';
CREATE INDEX IF NOT EXISTS waitlist_entries_customer ON waitlist_entries (customer_id, id);
-- One open entry per customer per product.
CREATE UNIQUE INDEX IF NOT EXISTS waitlist_entries_one_open ON waitlist_entries
    (customer_id, resource_id, unit_from, unit_to, COALESCE(rate_plan, '')) WHERE status <> 'closed';

-- An offer is an ordinary HOLD booking that names its entry. One live offer per customer: the
-- guard the offering transaction relies on (it skips an entry whose customer has one).
ALTER TABLE bookings ADD COLUMN IF NOT EXISTS waitlist_entry_id bigint REFERENCES waitlist_entries (id);
CREATE UNIQUE INDEX IF NOT EXISTS bookings_one_live_offer ON bookings (customer_id)
    WHERE waitlist_entry_id IS NOT NULL AND status = 'HOLD';

-- The offer's time to pay and the rule for an entry asking more than is free, per site.
-- waitlist_fit: 'skip' offers the next entry that fits (the skipped one keeps its place); 'wait'
-- offers nothing past the first open entry that does not fit.
ALTER TABLE hotels ADD COLUMN IF NOT EXISTS waitlist_offer_seconds integer NOT NULL DEFAULT 3600
        CHECK (waitlist_offer_seconds BETWEEN 1 AND 604800),
    ADD COLUMN IF NOT EXISTS waitlist_fit text NOT NULL DEFAULT 'skip' CHECK (waitlist_fit IN ('skip', 'wait'));
ALTER TABLE venues ADD COLUMN IF NOT EXISTS waitlist_offer_seconds integer NOT NULL DEFAULT 3600
        CHECK (waitlist_offer_seconds BETWEEN 1 AND 604800),
    ADD COLUMN IF NOT EXISTS waitlist_fit text NOT NULL DEFAULT 'skip' CHECK (waitlist_fit IN ('skip', 'wait'));

-- The offers whose booking workflow a worker has still to start (worker/waitlist_offers.go),
-- written in the offer's transaction: an offer committed is never left without its workflow.
-- claimed_until is a worker's lease, so two workers do not start the same offer at once.
CREATE TABLE IF NOT EXISTS waitlist_offer_starts (
    booking_id    text        PRIMARY KEY REFERENCES bookings (id),
    created_at    timestamptz NOT NULL DEFAULT now(),
    claimed_until timestamptz,
    started_at    timestamptz
);
CREATE INDEX IF NOT EXISTS waitlist_offer_starts_due ON waitlist_offer_starts (created_at) WHERE started_at IS NULL;

-- Integrators' events of an entry, ordered per entry (event_deliveries.booking_id is the
-- ordering key: 'waitlist-<id>' here).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION queue_waitlist_event(p_event text, p_type text, e waitlist_entries) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO event_deliveries (event_id, subscriber_id, booking_id, type, payload)
    SELECT p_event, s.id, 'waitlist-' || e.id, p_type,
           jsonb_build_object('id', p_event, 'type', p_type, 'createdAt', now(),
               'data', jsonb_strip_nulls(jsonb_build_object(
                   'entryId', e.id, 'status', e.status, 'reason', e.closed_reason,
                   'bookingId', e.offer_booking_id, 'quantity', e.quantity,
                   'hotelId', r.hotel_id, 'venueId', r.venue_id,
                   'roomTypeId', CASE WHEN r.hotel_id IS NOT NULL THEN r.code END,
                   'resourceId', CASE WHEN r.venue_id IS NOT NULL THEN r.code END,
                   'from', e.unit_from, 'to', e.unit_to, 'ratePlan', e.rate_plan,
                   'channelId', e.channel_id, 'agentId', e.agent_id)))
      FROM event_subscribers s, resources r
     WHERE p_type = ANY (s.events) AND r.id = e.resource_id
    ON CONFLICT (subscriber_id, event_id) DO NOTHING;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION queue_waitlist_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM queue_waitlist_event('evt_wl' || NEW.id || '_joined', 'waitlist.joined', NEW);
    ELSIF NEW.status = 'offered' AND OLD.status <> 'offered' THEN
        PERFORM queue_waitlist_event('evt_wl' || NEW.id || '_offered' || NEW.offers, 'waitlist.offered', NEW);
    ELSIF NEW.status = 'closed' AND OLD.status <> 'closed' THEN
        IF NEW.closed_reason IN ('offer_expired', 'declined') THEN
            PERFORM queue_waitlist_event('evt_wl' || NEW.id || '_' || NEW.closed_reason,
                CASE NEW.closed_reason WHEN 'declined' THEN 'waitlist.declined' ELSE 'waitlist.expired' END, NEW);
        END IF;
        PERFORM queue_waitlist_event('evt_wl' || NEW.id || '_closed', 'waitlist.closed', NEW);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
DROP TRIGGER IF EXISTS waitlist_entries_events ON waitlist_entries;
CREATE TRIGGER waitlist_entries_events AFTER INSERT OR UPDATE OF status ON waitlist_entries
    FOR EACH ROW EXECUTE FUNCTION queue_waitlist_events();

-- An offer's booking leaving HOLD ends its offer: paid (booked), expired or cancelled (declined:
-- the customer's decline is a cancel of the hold). Any booking confirmed closes its customer's
-- waiting entries for a resource of any of its lines over any of their units: they booked it
-- another way.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION close_waitlist_entries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.waitlist_entry_id IS NOT NULL AND OLD.status = 'HOLD' AND NEW.status <> 'HOLD' THEN
        UPDATE waitlist_entries SET status = 'closed', closed_at = now(),
               closed_reason = CASE WHEN NEW.status IN ('CONFIRMED', 'COMPLETED') THEN 'booked'
                                    WHEN NEW.status = 'EXPIRED' THEN 'offer_expired' ELSE 'declined' END
         WHERE id = NEW.waitlist_entry_id AND status = 'offered' AND offer_booking_id = NEW.id;
    END IF;
    IF NEW.status = 'CONFIRMED' AND OLD.status IS DISTINCT FROM 'CONFIRMED' THEN
        UPDATE waitlist_entries e SET status = 'closed', closed_at = now(), closed_reason = 'booked_elsewhere'
         WHERE e.customer_id = NEW.customer_id AND e.status = 'waiting'
           AND ((e.resource_id = NEW.resource_id AND e.unit_from < NEW.unit_to AND e.unit_to > NEW.unit_from)
                OR EXISTS (SELECT 1 FROM booking_lines l WHERE l.booking_id = NEW.id AND l.resource_id = e.resource_id
                              AND e.unit_from < l.unit_to AND e.unit_to > l.unit_from));
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
DROP TRIGGER IF EXISTS bookings_close_waitlist_entries ON bookings;
CREATE TRIGGER bookings_close_waitlist_entries AFTER UPDATE OF status ON bookings
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION close_waitlist_entries();

-- +goose Down
DROP TRIGGER bookings_close_waitlist_entries ON bookings;
DROP FUNCTION close_waitlist_entries();
DROP TRIGGER waitlist_entries_events ON waitlist_entries;
DROP FUNCTION queue_waitlist_events();
DROP FUNCTION queue_waitlist_event(text, text, waitlist_entries);
DROP TABLE waitlist_offer_starts;
ALTER TABLE venues DROP COLUMN waitlist_fit, DROP COLUMN waitlist_offer_seconds;
ALTER TABLE hotels DROP COLUMN waitlist_fit, DROP COLUMN waitlist_offer_seconds;
DROP INDEX bookings_one_live_offer;
ALTER TABLE bookings DROP COLUMN waitlist_entry_id;
DROP TABLE waitlist_entries;
