package cache

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/telemetry"
)

// Relay applies the availability outbox to Redis, in version order per unit, at least once: it
// is woken by NOTIFY when a change commits and polls as the fallback. Several relays may run:
// each claims its own rows.
//
// A relay with no cache applies nothing, and deletes a row only once it is older than
// UnappliedKept, so a deployment without Redis does not let the outbox grow. It must not drain
// younger rows: another process may use a cache (a mixed fleet, a rolling change of
// configuration), and a row deleted unapplied would leave Redis showing the unit as it was while
// a relay with the cache vouches for it. By UnappliedKept such a relay has long applied the
// row, and every value Redis held from before the change has expired.
type Relay struct {
	Store *db.Store
	Pool  *pgxpool.Pool // for LISTEN
	Cache *Units        // nil: delete rows past UnappliedKept only
	// Poll is the fallback interval (DefaultPoll when zero); Batch the rows per round.
	Poll   time.Duration
	Batch  int
	Logger *slog.Logger

	mu   sync.Mutex
	lags []time.Duration // the latest relayed changes' lag, for Lag
}

// Defaults of Relay.
const (
	DefaultPoll  = time.Second
	DefaultBatch = 500
	lagSamples   = 10_000
	// UnappliedKept is how long a relay with no cache leaves a row: a cached value's life and a
	// minute, for a read-through that read the unit just before the change committed.
	UnappliedKept = DefaultTTL + time.Minute
	// dropPoll is how often a relay with no cache deletes: nothing waits on it.
	dropPoll = 10 * time.Second
)

// Run relays until ctx ends.
func (r *Relay) Run(ctx context.Context) {
	if r.Poll <= 0 {
		r.Poll = DefaultPoll
	}
	if r.Batch <= 0 {
		r.Batch = DefaultBatch
	}
	if r.Logger == nil {
		r.Logger = slog.Default()
	}
	wake := make(chan struct{}, 1)
	poll := r.Poll
	if r.Cache != nil {
		go r.listen(ctx, wake)
	} else {
		poll = max(poll, dropPoll)
	}
	for ctx.Err() == nil {
		if n, err := r.Once(ctx); err != nil {
			if ctx.Err() == nil {
				r.Logger.Warn("availability relay: round failed; retrying", "err", err)
			}
		} else if n == r.Batch {
			continue // more waiting
		}
		select {
		case <-ctx.Done():
		case <-wake:
		case <-time.After(poll):
		}
	}
}

// Once relays one batch and returns how many outbox rows it applied (with no cache: deleted).
func (r *Relay) Once(ctx context.Context) (int, error) {
	batch := r.Batch
	if batch <= 0 {
		batch = DefaultBatch
	}
	if r.Cache == nil {
		return r.Store.DropOutbox(ctx, time.Now().Add(-UnappliedKept), batch)
	}
	n, err := r.Store.DrainOutbox(ctx, batch, func(states []db.CachedUnit) error {
		if err := r.Cache.Apply(ctx, states); err != nil {
			return err
		}
		r.record(states)
		return nil
	})
	if err == nil {
		// Everything committed before this round is in Redis: the gate may trust it.
		err = r.Cache.MarkRelayAlive(ctx)
	}
	return n, err
}

// listen turns NOTIFY bookflow_availability into wake-ups.
func (r *Relay) listen(ctx context.Context, wake chan<- struct{}) {
	listenChanges(ctx, r.Pool, func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}, func(bool) {})
}

// listenChanges calls notified for every NOTIFY bookflow_availability (one per transaction that
// changed inventory, at its commit), on a connection of its own (not one of the pool's, which
// the activities share), reconnecting while ctx lasts. listening(true) follows each LISTEN, and
// listening(false) each lost connection: changes committed meanwhile were not notified.
func listenChanges(ctx context.Context, pool *pgxpool.Pool, notified func(), listening func(bool)) {
	for ctx.Err() == nil {
		conn, err := pgx.ConnectConfig(ctx, pool.Config().ConnConfig.Copy())
		if err == nil {
			_, err = conn.Exec(ctx, "LISTEN bookflow_availability")
			if err == nil {
				listening(true)
			}
			for err == nil {
				if _, err = conn.WaitForNotification(ctx); err == nil {
					notified()
				}
			}
			listening(false)
			_ = conn.Close(context.Background())
		}
		select { // a relay's poll goes on meanwhile
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

func (r *Relay) record(states []db.CachedUnit) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, st := range states {
		r.lags = append(r.lags, now.Sub(st.Changed))
		telemetry.RelayLag.Observe(now.Sub(st.Changed).Seconds())
	}
	if over := len(r.lags) - lagSamples; over > 0 {
		r.lags = slices.Delete(r.lags, 0, over)
	}
}

// Lag is how far the cache trailed the database over the latest relayed changes: from a change
// being written to it being in Redis, at the median and the 99th percentile, and how many
// changes were measured.
func (r *Relay) Lag() (p50, p99 time.Duration, n int) {
	r.mu.Lock()
	lags := slices.Clone(r.lags)
	r.mu.Unlock()
	if len(lags) == 0 {
		return 0, 0, 0
	}
	slices.Sort(lags)
	return lags[len(lags)/2], lags[len(lags)*99/100], len(lags)
}
