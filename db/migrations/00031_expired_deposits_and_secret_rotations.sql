-- +goose Up

-- An expand step (docs/kubernetes.md): the previous release's pods still run on this schema.
-- They read and write previous_secret and previous_secret_until as before; the column added here
-- has a default, and the functions replaced keep their signatures.

-- 1. Every secret rotated out signs for 24 hours after it was, not only the last one. An admin
-- who retries a rotation whose answer was lost rotates twice: the first new secret never reached
-- the integrator, which still signs with the one before. previous_secret is the secret the last
-- rotation replaced; older_secrets holds the ones replaced before it that still sign, each with
-- its own end, newest first: [{"secret": ..., "until": ...}]. At most 8 are kept (with the
-- current and the previous one, 10 v1s in a delivery's signature), the oldest dropped first.
ALTER TABLE event_subscribers ADD COLUMN older_secrets jsonb NOT NULL DEFAULT '[]';

-- retired_secrets is older_secrets once previous (signing until its until) is rotated out too:
-- those still signing, without the empty secret (an agent without a webhook) and without
-- current (a secret set again), newest first, at most 8.
-- +goose StatementBegin
CREATE FUNCTION retired_secrets(older jsonb, previous text, until timestamptz, current text) RETURNS jsonb
LANGUAGE sql STABLE AS $$
    SELECT COALESCE(jsonb_agg(e ORDER BY (e ->> 'until')::timestamptz DESC), '[]')
      FROM (SELECT e FROM (
                SELECT jsonb_build_object('secret', previous, 'until', until) AS e
                UNION ALL
                SELECT e FROM jsonb_array_elements(older) e) all_of_them
             WHERE (e ->> 'until')::timestamptz > now()
               AND COALESCE(e ->> 'secret', '') NOT IN ('', current)
             ORDER BY (e ->> 'until')::timestamptz DESC
             LIMIT 8) kept
$$;
-- +goose StatementEnd

-- An agent's webhook secret changed: the one it replaces signs for 24 hours, and so do the ones
-- replaced before it within the day.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION sync_agent_subscriber() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO event_subscribers (id, agent_id, url, events, secret)
    VALUES ('agent.' || NEW.id, NEW.id, COALESCE(NEW.webhook_url, ''), '{agent}', COALESCE(NEW.webhook_secret, ''))
    ON CONFLICT (id) DO UPDATE SET agent_id = EXCLUDED.agent_id, url = EXCLUDED.url, updated_at = now(),
        older_secrets = CASE WHEN event_subscribers.secret <> EXCLUDED.secret
                             THEN retired_secrets(event_subscribers.older_secrets, event_subscribers.previous_secret,
                                                  event_subscribers.previous_secret_until, EXCLUDED.secret)
                             ELSE event_subscribers.older_secrets END,
        previous_secret = CASE WHEN event_subscribers.secret <> EXCLUDED.secret THEN event_subscribers.secret
                               ELSE event_subscribers.previous_secret END,
        previous_secret_until = CASE WHEN event_subscribers.secret <> EXCLUDED.secret THEN now() + interval '24 hours'
                                     ELSE event_subscribers.previous_secret_until END,
        secret = EXCLUDED.secret;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- 2. A hold the desk took a deposit for, whose hold ran out, moves HOLD -> REFUNDING (the deposit
-- goes back) by the hold timer: it expired, and is told as booking.expired, its refund then as
-- booking.refunded. A hold with a deposit cancelled by someone is still booking.cancelled.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION queue_status_event() RETURNS trigger LANGUAGE plpgsql AS $$
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
        WHEN NEW.to_status = 'REFUNDING' AND NEW.from_status = 'HOLD' AND NEW.actor = 'system:hold-timer' THEN 'booking.expired'
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

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION queue_status_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    t text;
BEGIN
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
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION sync_agent_subscriber() RETURNS trigger LANGUAGE plpgsql AS $$
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
DROP FUNCTION retired_secrets(jsonb, text, timestamptz, text);
ALTER TABLE event_subscribers DROP COLUMN older_secrets;
