package db

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// WithoutRestrictionsLock makes bulk restriction writes skip the sale lock until the returned
// function is called: the race tests' control. Not for parallel tests.
func WithoutRestrictionsLock() (restore func()) {
	lockRestrictions = func(ctx context.Context, tx pgx.Tx, hotels ...string) error { return nil }
	return func() { lockRestrictions = lockSaleRules }
}
