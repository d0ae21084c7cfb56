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
//     its policy kept (paid less refund due).
//
// What a booking says it keeps, its status and price, and who confirmed it are the
// booking's row and history: the ledger holds money, not a booking's life (ledger_mismatch holds
// the row's paid to the ledger). The checker only reports these: money is never changed by it.
func (s *Store) MoneyMismatches(ctx context.Context) ([]domain.Finding, error) {
	rows, err := s.pool.Query(ctx, `WITH kept AS (
			SELECT k.booking_id, m.payment_id,
				COALESCE(-sum(m.balance) FILTER (WHERE m.account = 'paid_in'), 0) AS brought,
				COALESCE(sum(m.balance) FILTER (WHERE m.account = 'paid_back'), 0) AS refunded,
				COALESCE(sum(m.balance) FILTER (WHERE m.account IN ('refunding', 'paid_back')), 0) AS given
			FROM money_ledger k JOIN money_balances m ON m.payment_id = k.ref
			WHERE k.kind = 'kept' GROUP BY 1, 2),
		money AS (
			SELECT b.id, b.payment_id, b.status, b.currency, b.total, b.paid, b.refund_due,
				COALESCE(sum(k.brought), 0) AS brought, COALESCE(sum(k.refunded), 0) AS refunded, COALESCE(sum(k.given), 0) AS given,
				COALESCE(bool_or(k.refunded > k.brought), false) AS payment_over
			FROM bookings b LEFT JOIN kept k ON k.booking_id = b.id
			GROUP BY b.id),
		rules AS (
			SELECT money.*, refunded > brought AS over_refunded,
				status IN ('CONFIRMED', 'COMPLETED') AND total > 0
					AND brought <= (SELECT COALESCE(sum(r.amount), 0) FROM money_ledger r WHERE r.booking_id = money.id
						AND r.kind = 'refund_asked' AND r.cause = 'reversal')
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
					AND brought - given > CASE WHEN status = 'REFUNDED' THEN greatest(paid - refund_due, 0) ELSE 0 END AS left_over,
				-- given back more than it gave up: what it keeps is below what it says it keeps
				brought - given < CASE WHEN status IN ('EXPIRED', 'CANCELLED', 'REJECTED') THEN 0
					WHEN status IN ('REFUNDING', 'REFUNDED') THEN greatest(paid - refund_due, 0) ELSE paid END AS over_given
			FROM money)
		SELECT id, COALESCE(payment_id, ''), status, currency, total, paid, refund_due, brought, refunded, given,
			over_refunded, payment_over, unpaid, left_over, over_given
		FROM rules WHERE over_refunded OR payment_over OR unpaid OR left_over OR over_given
		ORDER BY id LIMIT $1`, maxFindings, domain.SystemActorPrefix)
	if err != nil {
		return nil, err
	}
	var out []domain.Finding
	var m bookingMoney
	_, err = pgx.ForEachRow(rows, []any{&m.id, &m.paymentID, &m.status, &m.currency, &m.total, &m.paid, &m.refundDue,
		&m.brought, &m.refunded, &m.given, &m.overRefunded, &m.paymentOver, &m.unpaid, &m.leftOver, &m.overGiven}, func() error {
		out = append(out, m.findings()...)
		return nil
	})
	return out, err
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
