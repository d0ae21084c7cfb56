-- +goose Up

-- Integrators' subscriptions: a URL, the event types it wants, and the secrets its deliveries
-- are signed with (the previous one too, until previous_secret_until, while the integrator
-- rotates). An agent's webhook is a subscriber too (agent_id; id 'agent.' and the agent's), kept
-- in step with the agent by the trigger below: it takes the agent's notifications (event
-- 'agent'), which the booking workflow records.
CREATE TABLE event_subscribers (
    id                    text        PRIMARY KEY,
    agent_id              text        UNIQUE REFERENCES agents (id),
    url                   text        NOT NULL,
    events                text[]      NOT NULL CHECK (cardinality(events) > 0),
    secret                text        NOT NULL,
    previous_secret       text,
    previous_secret_until timestamptz,
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now()
);

-- One row per event and subscriber, written in the transaction that commits the change the event
-- tells of (by the triggers below), so an event is never sent for a change that did not commit,
-- nor lost for one that did. retry_from starts the window in which a failing delivery is retried
-- (EVENT_RETRY_FOR) before it is parked for an operator; a redelivery starts it anew.
CREATE TABLE event_deliveries (
    id              bigserial   PRIMARY KEY,
    event_id        text        NOT NULL,
    subscriber_id   text        NOT NULL REFERENCES event_subscribers (id) ON DELETE CASCADE,
    booking_id      text        NOT NULL,
    type            text        NOT NULL,
    payload         jsonb       NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    status          text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'parked')),
    attempts        integer     NOT NULL DEFAULT 0,
    retry_from      timestamptz NOT NULL DEFAULT now(),
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    last_status     integer,
    last_error      text        NOT NULL DEFAULT '',
    delivered_at    timestamptz,
    -- An agent's notification, whose delivered_at and last_error follow this delivery's.
    agent_notification_id bigint REFERENCES agent_notifications (id),
    UNIQUE (subscriber_id, event_id)
);
CREATE INDEX event_deliveries_due ON event_deliveries (next_attempt_at) WHERE status = 'pending';
-- A delivery waits while an earlier one of its booking to the same subscriber is not delivered.
CREATE INDEX event_deliveries_undelivered ON event_deliveries (subscriber_id, booking_id, id) WHERE status <> 'delivered';
CREATE INDEX event_deliveries_log ON event_deliveries (subscriber_id, id DESC);
CREATE INDEX event_deliveries_booking ON event_deliveries (booking_id); -- a customer's erasure

-- +goose StatementBegin
CREATE FUNCTION sync_agent_subscriber() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO event_subscribers (id, agent_id, url, events, secret)
    VALUES ('agent.' || NEW.id, NEW.id, COALESCE(NEW.webhook_url, ''), '{agent}', COALESCE(NEW.webhook_secret, ''))
    ON CONFLICT (id) DO UPDATE SET agent_id = EXCLUDED.agent_id, url = EXCLUDED.url, updated_at = now(),
        previous_secret = CASE WHEN event_subscribers.secret <> EXCLUDED.secret THEN event_subscribers.secret
                               ELSE event_subscribers.previous_secret END,
        previous_secret_until = CASE WHEN event_subscribers.secret <> EXCLUDED.secret THEN now() + interval '24 hours'
                                     ELSE event_subscribers.previous_secret_until END,
        secret = EXCLUDED.secret;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER agents_sync_subscriber AFTER INSERT OR UPDATE OF webhook_url, webhook_secret ON agents
    FOR EACH ROW EXECUTE FUNCTION sync_agent_subscriber();
INSERT INTO event_subscribers (id, agent_id, url, events, secret)
SELECT 'agent.' || id, id, COALESCE(webhook_url, ''), '{agent}', COALESCE(webhook_secret, '') FROM agents;

-- +goose StatementBegin
CREATE FUNCTION queue_booking_event(p_event text, p_type text, p_booking text, p_data jsonb) RETURNS void
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

-- A booking's status changes: held, confirmed, cancelled (a paid booking's cancellation is its
-- move to REFUNDING), checked in (COMPLETED), no-show, expired, rejected. Refunds are told by the
-- refunds below. Judged at commit (a deferred trigger), when the transaction's story is whole:
-- a change undone before it (a batch's booking deleted as if never written) tells nothing, and
-- a reservation refused in the transaction that made it (inserted HOLD, then REJECTED) was never
-- held: neither is told. A transaction's changes share their at (its now()).
-- +goose StatementBegin
CREATE FUNCTION queue_status_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    t text;
BEGIN
    -- Nobody subscribed (agents' webhooks take only their notifications): nothing to judge.
    IF NOT EXISTS (SELECT 1 FROM event_subscribers WHERE agent_id IS NULL)
        OR NOT EXISTS (SELECT 1 FROM booking_changes WHERE id = NEW.id) THEN
        RETURN NULL;
    END IF;
    IF NEW.to_status = 'HOLD' AND EXISTS (SELECT 1 FROM booking_changes c WHERE c.booking_id = NEW.booking_id
            AND c.id > NEW.id AND c.at = NEW.at AND c.to_status = 'REJECTED') THEN
        RETURN NULL;
    END IF;
    t := CASE
        WHEN NEW.to_status = 'HOLD' THEN 'booking.held'
        WHEN NEW.to_status = 'CONFIRMED' AND NEW.from_status IS DISTINCT FROM 'CONFIRMED' THEN 'booking.confirmed'
        WHEN NEW.to_status = 'CANCELLED' THEN 'booking.cancelled'
        WHEN NEW.to_status = 'REFUNDING' AND NEW.from_status IN ('HOLD', 'CONFIRMED', 'COMPLETED') THEN 'booking.cancelled'
        WHEN NEW.to_status = 'COMPLETED' THEN 'booking.checked_in'
        WHEN NEW.to_status = 'NO_SHOW' THEN 'booking.no_show'
        WHEN NEW.to_status = 'EXPIRED' THEN 'booking.expired'
        -- Rejected later (its supplier refused it): it was held, and integrators heard so.
        WHEN NEW.to_status = 'REJECTED' AND EXISTS (SELECT 1 FROM booking_changes c WHERE c.booking_id = NEW.booking_id
            AND c.id < NEW.id AND c.to_status = 'HOLD' AND c.at <> NEW.at) THEN 'booking.rejected'
    END;
    IF t IS NOT NULL THEN
        PERFORM queue_booking_event('evt_bc' || NEW.id, t, NEW.booking_id,
            jsonb_build_object('status', NEW.to_status, 'previousStatus', NEW.from_status, 'at', NEW.at));
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE CONSTRAINT TRIGGER booking_changes_queue_event AFTER INSERT ON booking_changes
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION queue_status_event();

-- +goose StatementBegin
CREATE FUNCTION queue_amendment_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.status = 'APPLIED' AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM 'APPLIED') THEN
        PERFORM queue_booking_event('evt_am' || NEW.id, 'booking.amended', NEW.booking_id,
            jsonb_build_object('amendmentId', NEW.id, 'difference', NEW.difference, 'currency', NEW.currency));
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER booking_amendments_queue_event AFTER INSERT OR UPDATE OF status ON booking_amendments
    FOR EACH ROW EXECUTE FUNCTION queue_amendment_event();

-- +goose StatementBegin
CREATE FUNCTION queue_refund_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.status = 'succeeded' AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM 'succeeded') THEN
        PERFORM queue_booking_event('evt_rf' || NEW.id, 'booking.refunded', NEW.booking_id,
            jsonb_build_object('refundId', NEW.id, 'amount', NEW.amount, 'currency', NEW.currency));
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER refunds_queue_event AFTER INSERT OR UPDATE OF status ON refunds
    FOR EACH ROW EXECUTE FUNCTION queue_refund_event();

-- +goose Down
DROP TRIGGER agents_sync_subscriber ON agents;
DROP FUNCTION sync_agent_subscriber();
DROP TRIGGER refunds_queue_event ON refunds;
DROP FUNCTION queue_refund_event();
DROP TRIGGER booking_amendments_queue_event ON booking_amendments;
DROP FUNCTION queue_amendment_event();
DROP TRIGGER booking_changes_queue_event ON booking_changes;
DROP FUNCTION queue_status_event();
DROP FUNCTION queue_booking_event(text, text, text, jsonb);
DROP TABLE event_deliveries;
DROP TABLE event_subscribers;
