package db

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// MoneyMismatches checks every booking's money against its ledger, in one pass: each payment a
// booking keeps (its ledger's kept entries: its payment, its amendments' balances, its desk's
// payments) is read from the balances ledger_post keeps, what it brought (captured), what went
// back (paid_back) and what is under way back (refunding), and summed once per booking. A
// booking is reported when
//   - its kept payments gave back more than they brought, or one of them did;
//   - what they keep (brought less given back or under way) is less than the booking says it
//     keeps (paid; less the refund due once REFUNDING or REFUNDED; nothing once it ended
//     otherwise);
//   - it is CONFIRMED or COMPLETED with a price, and neither paid (what its payments brought less
//     what reversals asked back) nor on account (a channel's sale its channel owes for by the
//     ledger, not any booking of a channel; or a hold a person confirmed without taking money in
//     that act, not a desk payment that paid it: the desk's account, even when the desk took
//     money before or since and reversed it);
//   - it ended (EXPIRED, CANCELLED, REJECTED, REFUNDED) with money left after its refunds
//     (given back or under way) and no reason to keep it: only a REFUNDED booking keeps the fee
//     its policy kept (paid less refund due), and a guaranteed one CANCELLED the fee its card paid
//     (its paid).
//
// A pay-at-hotel booking confirmed by its guarantee card is paid at the hotel: never unpaid.
//
// What a booking says it keeps, its status and price, and who confirmed it are the
// booking's row and history: the ledger holds money, not a booking's life (ledger_mismatch holds
// the row's paid to the ledger). The checker only reports these: money is never changed by it.
func (s *Store) MoneyMismatches(ctx context.Context) ([]domain.Finding, error) {
	// One pass of hash joins (issue 34: over 100,000 bookings, a median of 1.26 s before and 0.65 s
	// after in BenchmarkMoneyCheck): the balances of every payment are summed once, then joined to
	// the kept entries, the bookings and the reversals, each read once. Before, the reversals were
	// summed by a subquery run for every booking, and the planner, expecting to stop at the LIMIT,
	// walked the bookings in order. What a rule finds is unchanged: a payment kept with no balance
	// in these accounts counts 0, as it did. A payment has one balance per account (the table's
	// key), so max reads it: a sum's state (a 128-bit accumulator per group, then numeric) made
	// the hash table of 200,000 payments spill past work_mem and cost a tenth of the check. What
	// reversals asked back is read from their own partial index (migration 00039).
	// Over a million ledger entries (BenchmarkOverAMillionLedgerEntries/money_mismatch): see
	// docs/benchmarks-and-scaling.md.
	var out []domain.Finding
	err := s.queryChecked(ctx, `WITH paid AS (
			SELECT k.booking_id, -m.paid_in AS brought, m.paid_back AS refunded, m.refunding + m.paid_back AS given
			FROM money_ledger k JOIN (SELECT payment_id,
					COALESCE(max(balance) FILTER (WHERE account = 'paid_in'), 0) AS paid_in,
					COALESCE(max(balance) FILTER (WHERE account = 'paid_back'), 0) AS paid_back,
					COALESCE(max(balance) FILTER (WHERE account = 'refunding'), 0) AS refunding
				FROM money_balances WHERE account IN ('paid_in', 'paid_back', 'refunding') GROUP BY payment_id) m
				ON m.payment_id = k.ref
			WHERE k.kind = 'kept'),
		kept AS (
			SELECT booking_id, sum(brought) AS brought, sum(refunded) AS refunded, sum(given) AS given,
				bool_or(refunded > brought) AS payment_over
			FROM paid GROUP BY booking_id),
		reversed AS (
			SELECT booking_id, sum(amount) AS amount FROM money_ledger
			WHERE kind = 'refund_asked' AND cause = 'reversal' GROUP BY booking_id),
		money AS (
			SELECT b.id, b.payment_id, b.status, b.currency, b.total, b.paid, b.refund_due,
				b.card_guarantee IS NOT NULL AS guaranteed,
				COALESCE(k.brought, 0) AS brought, COALESCE(k.refunded, 0) AS refunded, COALESCE(k.given, 0) AS given,
				COALESCE(k.payment_over, false) AS payment_over, COALESCE(r.amount, 0) AS reversed
			FROM bookings b LEFT JOIN kept k ON k.booking_id = b.id LEFT JOIN reversed r ON r.booking_id = b.id),
		rules AS (
			SELECT money.*, refunded > brought AS over_refunded,
				-- what reversals of desk payments asked back is due again
				status IN ('CONFIRMED', 'COMPLETED') AND total > 0 AND brought <= reversed
					-- a pay-at-hotel booking's card guarantees it: its price is paid at the hotel
					AND NOT guaranteed
					-- a channel's sale is on account while the ledger says its channel owes for it
					AND ledger_channel_owes(money.id) <= 0
					-- confirmed by a person without taking money: on the desk's account, whatever the desk
					-- took (and reversed) before or since. A desk payment that paid the hold confirmed it
					-- in its own transaction: the change and the payment's capture share its now().
					AND NOT EXISTS (SELECT 1 FROM booking_changes c WHERE c.booking_id = money.id
						AND c.from_status = 'HOLD' AND c.to_status = 'CONFIRMED' AND NOT starts_with(COALESCE(c.actor, ''), $2)
						AND NOT EXISTS (SELECT 1 FROM money_ledger p WHERE p.booking_id = c.booking_id AND p.kind = 'captured'
							AND p.method <> 'provider' AND p.at = c.at)) AS unpaid,
				status IN ('EXPIRED', 'CANCELLED', 'REJECTED', 'REFUNDED')
					AND brought - given > CASE WHEN status = 'REFUNDED' THEN greatest(paid - refund_due, 0)
						-- a guaranteed booking cancelled unpaid keeps the fee its card paid
						WHEN status = 'CANCELLED' AND guaranteed THEN paid ELSE 0 END AS left_over,
				-- given back more than it gave up: what it keeps is below what it says it keeps
				brought - given < CASE WHEN status IN ('EXPIRED', 'CANCELLED', 'REJECTED') THEN 0
					WHEN status IN ('REFUNDING', 'REFUNDED') THEN greatest(paid - refund_due, 0) ELSE paid END AS over_given
			FROM money)
		SELECT id, COALESCE(payment_id, ''), status, currency, total, paid, refund_due, brought, refunded, given,
			over_refunded, payment_over, unpaid, left_over, over_given
		FROM rules WHERE over_refunded OR payment_over OR unpaid OR left_over OR over_given
		ORDER BY id LIMIT $1`, []any{maxFindings, domain.SystemActorPrefix}, func(rows pgx.Rows) error {
		var m bookingMoney
		_, err := pgx.ForEachRow(rows, []any{&m.id, &m.paymentID, &m.status, &m.currency, &m.total, &m.paid, &m.refundDue,
			&m.brought, &m.refunded, &m.given, &m.overRefunded, &m.paymentOver, &m.unpaid, &m.leftOver, &m.overGiven}, func() error {
			out = append(out, m.findings()...)
			return nil
		})
		return err
	})
	return out, err
}

// queryChecked runs one of the checker's queries over every booking or payment in a read-only
// transaction, without JIT (the planner's cost of such a scan passes jit_above_cost, and compiling
// took longer than running: 0.15 s of the money check) and with room for its hash tables (at the
// default work_mem of 4 MB the sums of 100,000 payments' balances spilled to disk). scan reads
// its rows.
func (s *Store) queryChecked(ctx context.Context, sql string, args []any, scan func(pgx.Rows) error) error {
	return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL jit = off; SET LOCAL work_mem = '32MB'`); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		return scan(rows)
	})
}

// bookingMoney is one booking's row of MoneyMismatches, with the rules it breaks.
type bookingMoney struct {
	id, paymentID, status, currency string
	total, paid, refundDue          int64
	brought, refunded, given        int64
	overRefunded, unpaid, leftOver  bool
	paymentOver, overGiven          bool
}

func (m bookingMoney) findings() []domain.Finding {
	var out []domain.Finding
	add := func(format string, args ...any) {
		out = append(out, domain.Finding{Check: domain.CheckMoney, BookingID: m.id, PaymentID: m.paymentID,
			Detail: fmt.Sprintf(format, args...)})
	}
	switch {
	case m.overRefunded:
		add("refunded %d %s, more than the %d its payments brought", m.refunded, m.currency, m.brought)
	case m.paymentOver:
		add("refunded more than one of its payments brought (%d %s refunded of %d)", m.refunded, m.currency, m.brought)
	case m.overGiven:
		add("%s keeps %d %s of what its payments brought after its refunds, less than the %d it should keep", m.status,
			m.brought-m.given, m.currency, m.paid)
	}
	if m.unpaid {
		add("%s at a price of %d %s, neither paid nor on account", m.status, m.total, m.currency)
	}
	if m.leftOver {
		left := m.brought - m.given
		if m.status == string(domain.StatusRefunded) {
			add("REFUNDED and keeps %d %s of what its payments brought, more than the %d its policy kept", left, m.currency,
				max(m.paid-m.refundDue, 0))
		} else {
			add("%s and keeps %d %s of what its payments brought, with no reason to", m.status, left, m.currency)
		}
	}
	return out
}
