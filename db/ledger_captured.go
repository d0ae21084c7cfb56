package db

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// Captured is what the money ledger says a payment brought in: its captured entry.
type Captured struct {
	Amount   int64
	Currency string
}

// LedgerCaptured returns a payment's captured entry; found is false when the ledger holds none
// (bookflow never recorded the payment's success, or its row was written without its entries).
func (s *Store) LedgerCaptured(ctx context.Context, paymentID string) (c Captured, found bool, err error) {
	err = s.pool.QueryRow(ctx, `SELECT amount, currency FROM money_ledger WHERE kind = 'captured' AND ref = $1`,
		paymentID).Scan(&c.Amount, &c.Currency)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, false, nil
	}
	return c, err == nil, err
}
