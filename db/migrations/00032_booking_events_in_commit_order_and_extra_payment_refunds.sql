-- +goose Up

-- An expand step (docs/kubernetes.md): the previous release's pods still run on this schema.
-- Only two trigger functions are replaced, with their signatures; no table changes, and the
-- events gain a field, never lose one.

-- 1. A booking's events are queued in commit order. A delivery's id is taken when its row is
-- inserted, and the sender sends a booking's deliveries to a subscriber in id order, each only
-- once every earlier one is delivered (db.ClaimEventDeliveries). Two transactions queueing
-- events of one booking could commit in the other order than their ids: the later id, committed
-- first, was claimed and sent while the earlier one was not yet visible, and that one then went
-- out after it. Now a transaction that queues an event of a booking takes the booking's
-- transaction-level advisory lock first (only when some subscriber takes the event, so a
-- deployment nobody subscribes to takes none): a second transaction queueing for the same booking
-- waits until the first has committed, so its ids are taken after the first's are visible, and
-- a claim that sees a later delivery sees every earlier one. The lock is the booking's only:
-- other bookings' events are queued at once. Every path that queues holds the booking's row lock
-- already (a status change, judged at commit; an amendment, decided under lockBooking), or queues
-- at the end of its transaction, after its other locks (a refund row: BeginRefundAttempt,
-- RecordResolvedRefund and a manual refund after the payment's lock, FinishRefundAttempt and
-- SettleRefund on their own; payment_stuck on its own), so none holds this lock while it waits
-- for another that a transaction waiting for this one holds. The money ledger (00033 on) keeps
-- this: its triggers (_ledger_*, db/functions/ledger_install_triggers.sql) fire before the
-- *_queue_event ones, so a change that posts to the ledger locks the booking's money first.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION queue_booking_event(p_event text, p_type text, p_booking text, p_data jsonb) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM event_subscribers s WHERE p_type = ANY (s.events)) THEN
        RETURN;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended('booking-events:' || p_booking, 0));
    INSERT INTO event_deliveries (event_id, subscriber_id, booking_id, type, payload)
    SELECT p_event, s.id, p_booking, p_type,
           jsonb_build_object('id', p_event, 'type', p_type, 'createdAt', now(),
                              'data', jsonb_build_object('bookingId', p_booking) || p_data)
      FROM event_subscribers s
     WHERE p_type = ANY (s.events)
    ON CONFLICT (subscriber_id, event_id) DO NOTHING;
END $$;
-- +goose StatementEnd

-- 2. booking.refunded says whose money went back (kind) and of which payment (paymentId).
-- "booking": the booking's own money (a cancellation's refund, a partial, goodwill or
-- early-departure one, an amendment's). "extra_payment": a whole payment the booking could not
-- keep, given back by the booking workflow's extra-payment refund (its attempts' keys are
-- <bookingId>/extra-<paymentId>/<n>, a resolution by hand's /0), or by finance by hand
-- (RecordManualRefund, manual/<paymentId>/<key>, which takes only a payment no booking keeps): a
-- second payment for a booking already paid (DUPLICATE_PAYMENT), a payment of the wrong amount, one
-- for a booking never held, a balance for an amendment no longer waiting for it. What the booking
-- holds is unchanged by it.
-- The type stays booking.refunded: a subscriber to it keeps hearing every refund, money going
-- back all the same, and a new type would be heard by nobody subscribed today.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION queue_refund_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.status = 'succeeded' AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM 'succeeded') THEN
        PERFORM queue_booking_event('evt_rf' || NEW.id, 'booking.refunded', NEW.booking_id,
            jsonb_build_object('refundId', NEW.id, 'amount', NEW.amount, 'currency', NEW.currency,
                               'paymentId', NEW.payment_id,
                               'kind', CASE WHEN starts_with(NEW.id, NEW.booking_id || '/extra-')
                                                OR starts_with(NEW.id, 'manual/')
                                            THEN 'extra_payment' ELSE 'booking' END));
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION queue_refund_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.status = 'succeeded' AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM 'succeeded') THEN
        PERFORM queue_booking_event('evt_rf' || NEW.id, 'booking.refunded', NEW.booking_id,
            jsonb_build_object('refundId', NEW.id, 'amount', NEW.amount, 'currency', NEW.currency));
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION queue_booking_event(p_event text, p_type text, p_booking text, p_data jsonb) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO event_deliveries (event_id, subscriber_id, booking_id, type, payload)
    SELECT p_event, s.id, p_booking, p_type,
           jsonb_build_object('id', p_event, 'type', p_type, 'createdAt', now(),
                              'data', jsonb_build_object('bookingId', p_booking) || p_data)
      FROM event_subscribers s
     WHERE p_type = ANY (s.events)
    ON CONFLICT (subscriber_id, event_id) DO NOTHING;
END $$;
-- +goose StatementEnd
