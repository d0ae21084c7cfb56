package db

import (
	"context"
	"time"
)

// PruneEventDeliveries deletes up to batch deliveries delivered or parked more than retention ago,
// and says how many it deleted: the caller repeats it while a whole batch goes, so no statement
// holds many rows at once. A pending delivery (being retried, or waiting behind an earlier one)
// is never deleted. Nor is a parked one while a later delivery of its booking to the same
// subscriber is not delivered: that one waits behind it (ClaimEventDeliveries), and must not
// become deliverable because the one it waits for was pruned; it goes once they are settled.
func (s *Store) PruneEventDeliveries(ctx context.Context, retention time.Duration, batch int) (int64, error) {
	// A row another transaction holds (a redelivery under way) is passed over, not waited for:
	// it is looked at again next time.
	tag, err := s.pool.Exec(ctx, `WITH doomed AS (
		SELECT d.id FROM event_deliveries d
		WHERE (d.status = 'delivered' AND d.delivered_at < now() - $1 * interval '1 microsecond')
		   OR (d.status = 'parked' AND d.parked_at < now() - $1 * interval '1 microsecond'
		       AND NOT EXISTS (SELECT 1 FROM event_deliveries e WHERE e.subscriber_id = d.subscriber_id
		                       AND e.booking_id = d.booking_id AND e.id > d.id AND e.status <> 'delivered'))
		LIMIT $2 FOR UPDATE OF d SKIP LOCKED)
		DELETE FROM event_deliveries WHERE id IN (SELECT id FROM doomed)`, retention.Microseconds(), batch)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}
