-- +goose Up

-- An agent's notification has one home, agent_notifications: its delivery carries no body of
-- its own (the sender builds the body the agent's webhook receives from the notification), so an
-- erasure or a reader never finds two copies that could disagree.
ALTER TABLE event_deliveries ALTER COLUMN payload DROP NOT NULL;
UPDATE event_deliveries SET payload = NULL WHERE agent_notification_id IS NOT NULL;
ALTER TABLE event_deliveries ADD CONSTRAINT event_deliveries_one_body
    CHECK ((payload IS NULL) = (agent_notification_id IS NOT NULL));

-- Delivered and parked deliveries are deleted EVENT_RETENTION after they were delivered or
-- parked (worker.EventSender.Prune). parked_at says when; those parked before this release count
-- from it.
ALTER TABLE event_deliveries ADD COLUMN parked_at timestamptz;
UPDATE event_deliveries SET parked_at = now() WHERE status = 'parked';
ALTER TABLE event_deliveries ADD CONSTRAINT event_deliveries_parked_at CHECK ((status = 'parked') = (parked_at IS NOT NULL));
CREATE INDEX event_deliveries_delivered_at ON event_deliveries (delivered_at) WHERE status = 'delivered';
CREATE INDEX event_deliveries_parked_at ON event_deliveries (parked_at) WHERE status = 'parked';

-- +goose Down
DROP INDEX event_deliveries_parked_at;
DROP INDEX event_deliveries_delivered_at;
ALTER TABLE event_deliveries DROP CONSTRAINT event_deliveries_parked_at, DROP COLUMN parked_at,
    DROP CONSTRAINT event_deliveries_one_body;
-- The body as 00029 stored it (the time in PostgreSQL's notation rather than Go's).
UPDATE event_deliveries d SET payload = jsonb_strip_nulls(jsonb_build_object('id', n.id, 'event', n.event,
        'bookingId', n.booking_id, 'detail', n.detail, 'at', n.created_at, 'amendmentId', n.amendment_id))
    FROM agent_notifications n WHERE n.id = d.agent_notification_id;
ALTER TABLE event_deliveries ALTER COLUMN payload SET NOT NULL;
