package db

import (
	"context"
	"time"
)

// PruneEventDeliveries deletes up to batch deliveries delivered or parked more than retention ago,
// and says how many it deleted: the caller repeats it while a whole batch goes, so no statement
// holds many rows at once. A parked one counts from its next_attempt_at, which the attempt that
// parked it set to that attempt's time plus its backoff, in this release and the previous one
// alike (migration 00030). A pending delivery (being retried, or waiting behind an earlier one)
// is never deleted. Nor is a parked one while a later delivery of its booking to the same
// subscriber is not delivered: that one waits behind it (ClaimEventDeliveries), and must not
// become deliverable because the one it waits for was pruned; it goes once they are settled.
func (s *Store) PruneEventDeliveries(ctx context.Context, retention time.Duration, batch int) (int64, error) {
	// Delivered ones, then parked ones, each found by its own index. A row another transaction
	// holds (a redelivery under way) is passed over, not waited for: it is looked at next time.
	var deleted int64
	for _, which := range []string{
		`d.status = 'delivered' AND d.delivered_at < now() - $1 * interval '1 microsecond'`,
		`d.status = 'parked' AND d.next_attempt_at < now() - $1 * interval '1 microsecond'
		 AND NOT EXISTS (SELECT 1 FROM event_deliveries e WHERE e.subscriber_id = d.subscriber_id
		                 AND e.booking_id = d.booking_id AND e.id > d.id AND e.status <> 'delivered')`,
	} {
		if deleted >= int64(batch) {
			break
		}
		tag, err := s.pool.Exec(ctx, `WITH doomed AS (SELECT d.id FROM event_deliveries d WHERE `+which+`
			LIMIT $2 FOR UPDATE OF d SKIP LOCKED)
			DELETE FROM event_deliveries WHERE id IN (SELECT id FROM doomed)`, retention.Microseconds(), int64(batch)-deleted)
		if err != nil {
			return deleted, err
		}
		deleted += tag.RowsAffected()
	}
	return deleted, nil
}
