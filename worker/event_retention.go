package worker

import (
	"context"
	"time"
)

// DefaultEventRetention is how long delivered and parked integrator events are kept
// (EVENT_RETENTION): long past the day a subscriber is asked to keep event ids and the day of
// retries, long enough for an operator back from a holiday to find a parked one and redeliver
// it, or to answer "did you send it?" from the delivery log, and no longer, since the log grows
// with every booking.
const DefaultEventRetention = 30 * 24 * time.Hour

const (
	eventPruneEvery = time.Hour // how often the sender prunes
	eventPruneBatch = 1000      // deliveries deleted per statement
)

// Prune deletes the deliveries delivered or parked more than Retention ago, a batch at a time
// (db.Store.PruneEventDeliveries says which are never deleted), and says how many went.
func (s *EventSender) Prune(ctx context.Context) (int64, error) {
	s.defaults()
	var total int64
	for ctx.Err() == nil {
		n, err := s.Store.PruneEventDeliveries(ctx, s.Retention, eventPruneBatch)
		total += n
		if err != nil || n < eventPruneBatch {
			return total, err
		}
	}
	return total, ctx.Err()
}

// pruneEvery prunes at once and then every eventPruneEvery until ctx ends.
func (s *EventSender) pruneEvery(ctx context.Context) {
	for {
		if n, err := s.Prune(ctx); err != nil && ctx.Err() == nil {
			s.Logger.Warn("integrator events: pruning the delivery log failed; trying again later", "err", err)
		} else if n > 0 {
			s.Logger.Info("integrator events: pruned the delivery log", "deleted", n, "olderThan", s.Retention)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(eventPruneEvery):
		}
	}
}
