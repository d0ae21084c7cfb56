-- +goose Up

-- An expand step: the previous release's pods run on this schema until the new ones replace them,
-- and again after a rollback (docs/kubernetes.md), so every statement of theirs stays valid here.
-- Nothing is cleared and no CHECK is added that their statements could violate.
--
-- An agent's notification has one home, agent_notifications: this release reads the body of an
-- agent's delivery from the notification (db.withAgentBodies), never from the delivery's payload.
-- It still writes that payload, the same body in the same statement, when it queues the delivery
-- (db.QueueAgentNotification), only for the previous release: its workers, still running during
-- a rollout, post payload as it is. Nothing of this release reads it; an erasure scrubs it like
-- any delivery's. The next release's migration (the contract step, once no pod of the previous
-- release is left) sets it NULL for agents' deliveries, drops its NOT NULL and adds
-- CHECK ((payload IS NULL) = (agent_notification_id IS NOT NULL)).

-- Delivered and parked deliveries are deleted EVENT_RETENTION after they were delivered or
-- parked (worker.EventSender.Prune, db.PruneEventDeliveries). A parked delivery's age counts from
-- its next_attempt_at: the attempt that parked it set it to that attempt's time plus its backoff
-- (at most the sender's longest, an hour), whichever release made it, and for the deliveries
-- parked before this migration too. (A column of its own, parked_at, would be left unset by the
-- previous release's parking and stale after its redelivery.)
CREATE INDEX event_deliveries_delivered_at ON event_deliveries (delivered_at) WHERE status = 'delivered';
CREATE INDEX event_deliveries_parked ON event_deliveries (next_attempt_at) WHERE status = 'parked';

-- +goose Down
DROP INDEX event_deliveries_parked;
DROP INDEX event_deliveries_delivered_at;
