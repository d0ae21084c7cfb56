package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// UnitKey names one unit of a resource: a night, or a venue's slot.
type UnitKey struct {
	ResourceID int64
	Start      time.Time
}

// CachedUnit is what the availability cache keeps of a unit: what is left to sell (0 while
// closed or not on sale, a billion when unlimited), whether it is split between channels (then
// a channel's share needs the database), and the version that wrote it (the outbox id; 0 for a
// value read through on a miss, which any relayed change replaces).
type CachedUnit struct {
	UnitKey
	Left    int
	Split   bool
	Version int64
	// Changed is when the oldest change the state carries was made (relayed states only).
	Changed time.Time
	// Prices are the unit's rates as the database holds them (a night's: nil for a venue's slot
	// is never asked), from which a search prices every plan.
	Prices domain.NightRates
}

// unitStateColumns read a unit's state from inventory i and its allocations, for key k.
const unitStateColumns = `COALESCE(` + unitsLeft + `, 0),
	EXISTS (SELECT 1 FROM allocations a WHERE a.resource_id = k.resource_id AND a.unit_start = k.unit_start), ` +
	nightRatesColumns

// DrainOutbox claims up to limit outbox rows (skipping those another relay holds), reads the
// units they name as they stand, and hands them to apply, one state per unit, versioned by its
// newest row. The rows are deleted only when apply succeeds, in the same transaction, so a
// failed apply (Redis down) leaves them for the next round: at least once, in version order per
// unit. It returns how many rows it drained.
func (s *Store) DrainOutbox(ctx context.Context, limit int, apply func([]CachedUnit) error) (int, error) {
	var n int
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `WITH claimed AS (
				SELECT id FROM availability_outbox ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED),
			gone AS (DELETE FROM availability_outbox o USING claimed c WHERE o.id = c.id
				RETURNING o.id, o.resource_id, o.unit_start, o.created_at),
			k AS (SELECT resource_id, unit_start, max(id) AS version, min(created_at) AS changed, count(*) AS n
				FROM gone GROUP BY resource_id, unit_start)
			SELECT k.resource_id, k.unit_start, k.version, k.changed, k.n, `+unitStateColumns+`
			FROM k LEFT JOIN LATERAL (SELECT * FROM inventory x
				WHERE x.resource_id = k.resource_id AND x.unit_start = k.unit_start LIMIT 1) i ON true`, limit)
		if err != nil {
			return err
		}
		var states []CachedUnit
		for rows.Next() {
			var st CachedUnit
			var count int
			var prices nightRatesScan
			if err := rows.Scan(append([]any{&st.ResourceID, &st.Start, &st.Version, &st.Changed, &count, &st.Left,
				&st.Split}, prices.targets()...)...); err != nil {
				rows.Close()
				return err
			}
			st.Prices = prices.rates(domain.DateOf(st.Start, time.UTC))
			n += count
			states = append(states, st)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(states) == 0 {
			return nil
		}
		return apply(states)
	})
	if err != nil {
		n = 0
	}
	return n, err
}

// DropOutbox deletes up to limit outbox rows written before before, unapplied (skipping those
// a relay holds), and returns how many: the retention of a relay that has no cache to apply
// them to.
func (s *Store) DropOutbox(ctx context.Context, before time.Time, limit int) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM availability_outbox WHERE id IN (
		SELECT id FROM availability_outbox WHERE created_at < $1 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)`, before, limit)
	return int(tag.RowsAffected()), err
}

// UnitStates reads the units named as they stand (version 0), in the keys' order, for a cache
// miss.
func (s *Store) UnitStates(ctx context.Context, keys []UnitKey) ([]CachedUnit, error) {
	ids, starts := make([]int64, len(keys)), make([]time.Time, len(keys))
	for i, k := range keys {
		ids[i], starts[i] = k.ResourceID, k.Start
	}
	rows, err := s.pool.Query(ctx, `SELECT k.resource_id, k.unit_start, `+unitStateColumns+`
		FROM unnest($1::bigint[], $2::timestamp[]) WITH ORDINALITY AS k(resource_id, unit_start, n)
		LEFT JOIN LATERAL (SELECT * FROM inventory x WHERE x.resource_id = k.resource_id AND x.unit_start = k.unit_start LIMIT 1) i ON true
		ORDER BY k.n`, ids, starts)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (CachedUnit, error) {
		var st CachedUnit
		var prices nightRatesScan
		err := r.Scan(append([]any{&st.ResourceID, &st.Start, &st.Left, &st.Split}, prices.targets()...)...)
		st.Prices = prices.rates(domain.DateOf(st.Start, time.UTC))
		return st, err
	})
}

// OutboxPending reports whether changes of a resource's units in [from, to) are still on their
// way to the cache.
func (s *Store) OutboxPending(ctx context.Context, resourceID int64, from, to time.Time) (bool, error) {
	var pending bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM availability_outbox
		WHERE resource_id = $1 AND unit_start >= $2 AND unit_start < $3)`, resourceID, from, to).Scan(&pending)
	return pending, err
}

// OutboxBacklog returns how many availability changes wait for the relay (counted up to
// outboxCountCap, so a relay that is down for long does not make the count itself slow), and
// when the oldest of them was made (zero when none waits).
func (s *Store) OutboxBacklog(ctx context.Context) (n int64, oldest time.Time, err error) {
	var at *time.Time
	err = s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM (SELECT 1 FROM availability_outbox LIMIT $1) c),
		(SELECT created_at FROM availability_outbox ORDER BY id LIMIT 1)`, outboxCountCap).Scan(&n, &at)
	if at != nil {
		oldest = *at
	}
	return n, oldest, err
}

// outboxCountCap bounds OutboxBacklog's count.
const outboxCountCap = 1_000_000
