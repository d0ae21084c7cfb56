package db

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// OneRoundTrips is how many reservations the store made with reserve_stay.
func OneRoundTrips(s *Store) int64 { return s.oneTrips.Load() }

// LockSaleRules takes the sale lock of hotels, as a rule write does first.
func LockSaleRules(ctx context.Context, tx pgx.Tx, hotels ...string) error {
	return lockSaleRules(ctx, tx, hotels...)
}
