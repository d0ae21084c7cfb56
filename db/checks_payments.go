package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// The invariant checker's checks of payments and refund attempts. Each reads the money ledger
// (money_ledger, and the balances ledger_post keeps in money_balances; see ledger.go), not the
// payment and refund rows: what a payment brought is its captured entry, what went back its
// paid_back account, what is under way its refunding account, and an attempt's outcome is its
// one outcome entry, which no later change of a row can take back.

// keepingStatuses are the statuses of a booking that keeps money: any other (EXPIRED, CANCELLED,
// REJECTED) keeps none, whatever its ledger holds, but for the fee a guaranteed booking
// cancelled late was charged (its guarantee_fee names the payment).
const keepingStatuses = `('HOLD', 'CONFIRMED', 'COMPLETED', 'NO_SHOW', 'REFUNDING', 'REFUNDED')`

// UnmatchedPayments finds money captured over age ago that no booking keeps and that is not
// given back whole: what the payment brought less what is under way back or was given back
// (through the provider, at the desk or settled by hand) is money kept without a booking. A
// booking keeps a payment when its ledger has the payment's kept entry (its payment, an
// amendment's balance, money its desk took) and it is still in a status that keeps money.
func (s *Store) UnmatchedPayments(ctx context.Context, age time.Duration) ([]domain.Finding, error) {
	// The age counts from the capture, not the payment's row: a payment declined long ago and
	// paid a moment ago has just arrived. The booking's status is the row's: the ledger records
	// money, not a booking's life.
	//
	// The captured entries no live booking keeps are found first, by hash joins over every
	// captured and kept entry and every booking (issue 34: over 100,000 payments, a median of 0.80 s
	// before and 0.40 s after in BenchmarkMoneyCheck); what is left of each is summed only for those. OFFSET 0
	// keeps that order: expecting to stop at the LIMIT, the planner looked each captured entry's
	// kept entry and booking up by their keys, one by one, in the order of the findings.
	var out []domain.Finding
	err := s.queryChecked(ctx, `SELECT c.payment_id, c.booking_id, c.amount, l.left, c.currency
		FROM (SELECT c.* FROM money_ledger c
			WHERE c.kind = 'captured' AND c.at < now() - $1 * interval '1 microsecond'
				AND NOT EXISTS (SELECT 1 FROM money_ledger k JOIN bookings b ON b.id = k.booking_id
					WHERE k.kind = 'kept' AND k.ref = c.payment_id AND (b.status IN `+keepingStatuses+`
						OR b.status = 'CANCELLED' AND b.guarantee_fee->>'paymentId' = c.payment_id))
			OFFSET 0) c
		CROSS JOIN LATERAL (SELECT COALESCE(sum(m.balance), 0) AS left FROM money_balances m
			WHERE m.payment_id = c.payment_id AND m.account IN ('received', 'kept', 'owed')) l
		WHERE l.left > 0
		ORDER BY c.at, c.payment_id LIMIT $2`, []any{age.Microseconds(), maxFindings}, func(rows pgx.Rows) error {
		var err error
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Finding, error) {
			var f domain.Finding
			var amount, left int64
			var currency string
			err := r.Scan(&f.PaymentID, &f.BookingID, &amount, &left, &currency)
			f.Check, f.Detail = domain.CheckUnmatchedPay, fmt.Sprintf("%d %s received, neither kept by a booking nor given back", amount, currency)
			if left != amount {
				f.Detail = fmt.Sprintf("%d %s received, %d of it neither kept by a booking nor given back", amount, currency, left)
			}
			return f, err
		})
		return err
	})
	return out, err
}

// RefundsPaidTwice finds payments that gave back more than they brought (paid_back above what
// was captured, nothing for a payment that never succeeded), and refund steps that succeeded
// more than once. A step's attempts are <bookingId>/<step>/<n> (0 when an operator resolved it);
// any other refund (one settled by hand, manual/<paymentId>/<key>) is a step of its own, whatever
// its key ends with. An attempt's success is its outcome entry.
func (s *Store) RefundsPaidTwice(ctx context.Context) ([]domain.Finding, error) {
	rows, err := s.pool.Query(ctx, `SELECT m.payment_id, COALESCE(c.booking_id, m.booking_id),
			format('refunded %s of a payment of %s %s', m.balance, COALESCE(c.amount, 0), COALESCE(c.currency,
				(SELECT l.currency FROM money_ledger l WHERE l.payment_id = m.payment_id ORDER BY l.id LIMIT 1)))
		FROM money_balances m LEFT JOIN money_ledger c ON c.kind = 'captured' AND c.ref = m.payment_id
		WHERE m.account = 'paid_back' AND m.balance > COALESCE(c.amount, 0)
		UNION ALL
		SELECT min(l.payment_id), min(l.booking_id), format('refund step %s succeeded %s times', step, count(*))
		FROM money_ledger l CROSS JOIN LATERAL (SELECT CASE WHEN starts_with(l.ref, l.booking_id || '/')
				AND substr(l.ref, length(l.booking_id) + 2) ~ '^.+/[0-9]+$' THEN regexp_replace(l.ref, '/[0-9]+$', '')
				ELSE l.ref END AS step) s
		WHERE l.kind IN ('refund_succeeded', 'settled_by_hand') GROUP BY step HAVING count(*) > 1
		LIMIT $1`, maxFindings)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Finding, error) {
		f := domain.Finding{Check: domain.CheckRefundTwice}
		return f, r.Scan(&f.PaymentID, &f.BookingID, &f.Detail)
	})
}

// UnsettledRefunds finds refund attempts sent over age ago whose outcome the ledger still lacks:
// money in a payment's refunding account that neither came back nor reached the guest. Its age
// counts from when it was sent, however often its saga looked it up since.
func (s *Store) UnsettledRefunds(ctx context.Context, age time.Duration) ([]domain.Finding, error) {
	// The payments with money refunding are few: their attempts are read, not every attempt.
	// Whether the provider answered pending or nothing yet is the row's (the ledger does not
	// tell the two apart).
	// One waiting at the desk (db/refund_hand_over.go) says so: nobody has handed it over.
	rows, err := s.pool.Query(ctx, `SELECT a.booking_id, a.payment_id, format('refund attempt %s of %s %s still %s since %s',
			a.ref, a.amount, a.currency, CASE WHEN f.status = 'pending' AND f.method <> 'provider'
				THEN 'due at the desk (nobody has handed it over)' ELSE COALESCE(f.status, 'sent') END,
			to_char(a.at, 'YYYY-MM-DD HH24:MI TZ'))
		FROM money_balances m JOIN money_ledger a ON a.payment_id = m.payment_id AND a.kind = 'attempt_sent'
			LEFT JOIN refunds f ON f.id = a.ref
		WHERE m.account = 'refunding' AND m.balance <> 0 AND a.at < now() - $1 * interval '1 microsecond'
			AND NOT EXISTS (SELECT 1 FROM money_ledger o WHERE o.kind IN ('refund_succeeded', 'refund_failed', 'settled_by_hand')
				AND o.ref = a.ref)
		ORDER BY a.at, a.ref LIMIT $2`, age.Microseconds(), maxFindings)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Finding, error) {
		f := domain.Finding{Check: domain.CheckRefundUnsettled}
		return f, r.Scan(&f.BookingID, &f.PaymentID, &f.Detail)
	})
}
