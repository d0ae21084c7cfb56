package db

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// Where a refund is drawn is the ledger's to say, not a workflow's memory: what a booking keeps
// of each payment is its kept balance, and a cancel's or an amendment's refund is drawn by the
// database when it is recorded (ledger_draw), newest kept payment first. A workflow, a resumed
// one or a recovery reads the parts back from here.

// CancelRefundRef and AmendmentRefundRef name the refunds the database draws itself: a booking's
// cancel (or late payment, or recovery) and an amendment that lowered its price. Their parts are
// the ledger's refund_asked entries <ref>@<paymentId>.
func CancelRefundRef(bookingID string) string { return bookingID + "/refund" }

// AmendmentRefundRef names the refund of amendment id of booking bookingID (see CancelRefundRef).
func AmendmentRefundRef(bookingID string, id int64) string {
	return fmt.Sprintf("%s/amendment-%d", bookingID, id)
}

// RefundParts lists what the refund named ref asked back of each payment of booking bookingID,
// in the order the ledger drew them (nil when it drew nothing). Only the database's own draws
// (cause cancel or amendment) are read: a staff refund's entries never pass for them.
func (s *Store) RefundParts(ctx context.Context, bookingID, ref string) ([]domain.Payment, error) {
	rows, err := s.pool.Query(ctx, `SELECT payment_id, amount, currency FROM money_ledger
		WHERE booking_id = $1 AND kind = 'refund_asked' AND ref = $2 || '@' || payment_id
			AND cause IN ('cancel', 'amendment') ORDER BY id`, bookingID, ref)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[domain.Payment])
}

// PartsOrWhole is what a refund of amount gives back of each payment: the ledger's parts when
// they add up to it, else all of it on payment (the booking's, as before the ledger drew
// refunds), which the per-payment bound then holds to what is left of it (an attempt beyond is
// refused, and the refund waits for an operator): a draw that disagrees with the booking's row
// never gives back less, quietly.
func PartsOrWhole(parts []domain.Payment, amount int64, payment domain.Payment) []domain.Payment {
	var sum int64
	for _, p := range parts {
		sum += p.Amount
	}
	if len(parts) > 0 && sum == amount {
		return parts
	}
	payment.Amount = amount
	return []domain.Payment{payment}
}

// reservedRefundKey reports whether key would name a staff refund's ledger entries as one of the
// database's own draws (CancelRefundRef, AmendmentRefundRef): "refund", "amendment-<n>".
func reservedRefundKey(key string) bool {
	n := strings.TrimPrefix(key, "amendment-")
	return key == "refund" || n != key && n != "" && strings.Trim(n, "0123456789") == ""
}

// drawOnKept draws amount on what booking bookingID keeps of each payment, newest kept first, as
// the ledger's draw does; under the booking's lock. It fails with ErrConflict when the booking
// keeps less.
func drawOnKept(ctx context.Context, tx pgx.Tx, bookingID string, amount int64) ([]domain.Payment, error) {
	rows, err := tx.Query(ctx, `SELECT k.payment_id, m.balance, k.currency FROM money_ledger k
		JOIN money_balances m ON m.payment_id = k.payment_id AND m.account = 'kept'
		WHERE k.booking_id = $1 AND k.kind = 'kept' ORDER BY k.id DESC`, bookingID)
	if err != nil {
		return nil, err
	}
	kept, err := pgx.CollectRows(rows, pgx.RowToStructByPos[domain.Payment])
	if err != nil {
		return nil, err
	}
	var parts []domain.Payment
	left := amount
	for _, k := range kept {
		if take := min(k.Amount, left); take > 0 {
			parts, left = append(parts, domain.Payment{ID: k.ID, Amount: take, Currency: k.Currency}), left-take
		}
	}
	if left > 0 {
		return nil, fmt.Errorf("%w: booking %s keeps %d less than a refund of %d", domain.ErrConflict, bookingID, left, amount)
	}
	return parts, nil
}
