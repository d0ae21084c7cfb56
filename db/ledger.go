package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// The money ledger (migration 00033, db/functions/ledger_*.sql): every movement and promise of a
// booking's money is an entry, posted by triggers in the transaction of the change, never
// updated or deleted. docs/payments-and-refunds.md ("The ledger") describes its accounts.

// LedgerMoney is a booking's money summed from its ledger entries (ledger_booking_money). Of the
// payments it kept: Paid (what they brought), Kept (what it keeps), Owed (asked back, not yet
// sent), Refunding (sent, the outcome not yet in), Refunded (given back), Reversed (asked back
// by reversals of desk payments: due again). Of the payments it did not keep: Unkept (not yet
// given back) and UnkeptRefunded.
type LedgerMoney struct {
	Paid           int64 `json:"paid"`
	Kept           int64 `json:"kept"`
	Owed           int64 `json:"owed"`
	Refunding      int64 `json:"refunding"`
	Refunded       int64 `json:"refunded"`
	Reversed       int64 `json:"reversed"`
	Unkept         int64 `json:"unkept"`
	UnkeptRefunded int64 `json:"unkeptRefunded"`
}

// LedgerMoney sums booking id's ledger.
func (s *Store) LedgerMoney(ctx context.Context, id string) (LedgerMoney, error) {
	var m LedgerMoney
	err := s.pool.QueryRow(ctx, `SELECT * FROM ledger_booking_money($1)`, id).Scan(&m.Paid, &m.Kept, &m.Owed, &m.Refunding,
		&m.Refunded, &m.Reversed, &m.Unkept, &m.UnkeptRefunded)
	return m, err
}

// LedgerEntry is one entry of the money ledger: Amount moved from the Debit account to the
// Credit account of payment PaymentID ("" for a promise: a price, a balance due).
type LedgerEntry struct {
	ID        int64     `json:"id"`
	At        time.Time `json:"at"`
	BookingID string    `json:"bookingId"`
	PaymentID string    `json:"paymentId,omitempty"`
	Kind      string    `json:"kind"`
	Cause     string    `json:"cause,omitempty"`
	Debit     string    `json:"debit"`
	Credit    string    `json:"credit"`
	Amount    int64     `json:"amount"`
	Currency  string    `json:"currency"`
	Ref       string    `json:"ref"`
	Method    string    `json:"method,omitempty"`
	Actor     string    `json:"actor,omitempty"`
}

// BookingLedger returns a booking's ledger entries in the order they were posted.
func (s *Store) BookingLedger(ctx context.Context, id string) ([]LedgerEntry, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, at, booking_id, payment_id, kind, COALESCE(cause, ''), debit, credit,
			amount, currency, ref, COALESCE(method, ''), COALESCE(actor, '')
		FROM money_ledger WHERE booking_id = $1 ORDER BY id`, id)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[LedgerEntry])
}
