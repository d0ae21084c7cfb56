package db

import (
	"context"
	"sync"

	"github.com/jackc/pgx/v5"
)

// OneRoundTrips is how many reservations the store made with reserve_stay.
func OneRoundTrips(s *Store) int64 { return s.oneTrips.Load() }

// LockSaleRules takes the sale lock of hotels, as a rule write does first.
func LockSaleRules(ctx context.Context, tx pgx.Tx, hotels ...string) error {
	return lockSaleRules(ctx, tx, hotels...)
}

// BatchRuns is how many transactions of more than one reservation the store ran, and how many
// reservations they held.
func BatchRuns(s *Store) (runs, calls int64) { return s.batches.runs.Load(), s.batches.calls.Load() }

// FailedBatches is how many of them failed as a whole (their callers then tried alone).
func FailedBatches(s *Store) int64 { return s.batches.failed.Load() }

// Queued is how many reservations wait for the writer of a room type.
func Queued(s *Store, hotel, roomType string) int {
	s.batches.mu.Lock()
	defer s.batches.mu.Unlock()
	return len(s.batches.queues[batchKey{hotel, roomType}])
}

// HoldBatches makes the store's writers wait, before taking each batch, until release is
// called: the reservations made meanwhile form one batch.
func HoldBatches(s *Store) (release func()) {
	gate := make(chan struct{})
	s.batches.hook = func() { <-gate }
	var once sync.Once
	return func() { once.Do(func() { close(gate) }) }
}

// PlanSearchesAsPostgreSQLWould leaves the search's plans to PostgreSQL (it reads tables of
// names whole where its estimates say so), for a benchmark's baseline.
func (s *Store) PlanSearchesAsPostgreSQLWould() { s.plainPlans = true }
