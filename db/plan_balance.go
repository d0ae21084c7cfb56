package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// A deposit plan's money in the database (issue 35): the hold is confirmed by its deposit and
// the booking owes the rest by bookings.balance_due_at (migration 00047); the online payment of
// the rest is kept as bookings.balance_payment_id. The rules are domain.PaymentRule's
// (domain/plan_balance.go).

// ErrBalanceDatePassed: a deposit reached the database after the booking's balance date; its
// hold, still live, waits for its whole price.
var ErrBalanceDatePassed = fmt.Errorf("%w: the balance date passed: the hold is paid in full", domain.ErrConflict)

// confirmByDeposit confirms booking b, on hold, by pay, its deposit, while its hold and its
// balance date are ahead by the database's clock and its price and what it was paid are still
// what b says (a price set by hand, a desk payment meanwhile: a conflict, judged again). A
// deposit after the balance date of a live hold is ErrBalanceDatePassed.
func (s *Store) confirmByDeposit(ctx context.Context, b domain.Booking, pay domain.Payment) (domain.Booking, error) {
	booking, err := scanBooking(s.pool.QueryRow(ctx, `UPDATE bookings b SET status = 'CONFIRMED',
			payment_id = $2, paid = b.paid + $3, updated_at = now()
		FROM resources r, (SELECT set_config('bookflow.actor', $4, true)) AS actor
		WHERE b.id = $1 AND r.id = b.resource_id AND b.status = 'HOLD' AND b.expires_at > now()
			AND b.balance_due_at > now() AND b.total = $5 AND b.paid = $6 AND b.currency = $7
		RETURNING `+bookingColumns, b.ID, pay.ID, pay.Amount, actorOf(ctx), b.Price.Total, b.Paid, pay.Currency))
	if !errors.Is(err, domain.ErrNotFound) {
		return booking, err
	}
	var holding, due bool
	if err := s.pool.QueryRow(ctx, `SELECT expires_at > now(), COALESCE(balance_due_at <= now(), false) FROM bookings WHERE id = $1`,
		b.ID).Scan(&holding, &due); err != nil {
		return b, err
	}
	switch {
	case !holding:
		return b, fmt.Errorf("%w: the hold on booking %s expired at %s", domain.ErrConflict, b.ID,
			b.ExpiresAt.UTC().Format(time.RFC3339))
	case due:
		return b, fmt.Errorf("%w: booking %s's was %s", ErrBalanceDatePassed, b.ID, b.BalanceDueAt.Format(time.RFC3339))
	}
	return b, fmt.Errorf("%w: booking %s changed while its deposit of %d %s was taken (its price, what was paid, "+
		"or its balance date %s passed)", domain.ErrConflict, b.ID, pay.Amount, pay.Currency,
		b.BalanceDueAt.Format(time.RFC3339))
}

// PayPlanBalance keeps pay as the rest of the price of booking bookingID, confirmed by its
// deposit: the booking owes nothing more. Paying it again with the same payment changes nothing.
// It is a conflict when the booking owes no plan balance (it is not a deposit booking, it was
// paid, it ended), pay is not exactly what it owes, or pay was kept or asked back already.
func (s *Store) PayPlanBalance(ctx context.Context, bookingID string, pay domain.Payment) (domain.Booking, error) {
	var booking domain.Booking
	err := s.inBookingTx(ctx, bookingID, func(tx pgx.Tx) error {
		b, err := scanBooking(tx.QueryRow(ctx, `SELECT `+bookingColumns+`
			FROM bookings b JOIN resources r ON r.id = b.resource_id WHERE b.id = $1 FOR UPDATE OF b`, bookingID))
		if err != nil {
			return err
		}
		booking = b
		var paidBy string // already locked: read in the same transaction
		if err := tx.QueryRow(ctx, `SELECT COALESCE(balance_payment_id, '') FROM bookings WHERE id = $1`, bookingID).Scan(&paidBy); err != nil {
			return err
		}
		switch owed := b.PlanBalance(); {
		case paidBy == pay.ID:
			return nil
		case owed == 0 || paidBy != "":
			return fmt.Errorf("%w: booking %s is %s and owes no balance of its price", domain.ErrConflict, b.ID, b.Status)
		case pay.Amount != owed || pay.Currency != b.Price.Currency:
			return fmt.Errorf("%w: booking %s owes %d %s; payment %s of %d %s does not pay it", domain.ErrConflict,
				b.ID, owed, b.Price.Currency, pay.ID, pay.Amount, pay.Currency)
		}
		if err := paymentWhole(ctx, tx, pay.ID); err != nil {
			return err
		}
		booking, err = scanBooking(tx.QueryRow(ctx, `UPDATE bookings b SET balance_payment_id = $2, paid = b.paid + $3,
				updated_at = now()
			FROM resources r WHERE b.id = $1 AND r.id = b.resource_id RETURNING `+bookingColumns, bookingID, pay.ID, pay.Amount))
		return err
	})
	return booking, err
}

// refreshBalanceDate sets the balance date of booking bookingID, a deposit plan's hold whose stay
// an amendment moved, from its new check-in, as the reservation set it: only while it is ahead
// (a hold moved within the plan's days is paid in full). Any other booking keeps its own.
func refreshBalanceDate(ctx context.Context, tx pgx.Tx, bookingID string) error {
	var terms *domain.PlanTerms
	var from time.Time
	var zone string
	var status domain.Status
	if err := tx.QueryRow(ctx, `SELECT plan_terms, unit_from, COALESCE(time_zone, 'UTC'), status FROM bookings WHERE id = $1`,
		bookingID).Scan(&terms, &from, &zone, &status); err != nil {
		return err
	}
	if status != domain.StatusHold || terms == nil || terms.Payment.Kind != domain.PayDeposit {
		return nil
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return err
	}
	due := terms.Payment.BalanceDueAt(domain.DateOf(from, time.UTC), loc)
	_, err = tx.Exec(ctx, `UPDATE bookings SET balance_due_at = CASE WHEN $2::timestamptz > now() THEN $2::timestamptz END
		WHERE id = $1`, bookingID, due)
	return err
}

// BalancesPastDue finds the bookings confirmed by a deposit that still owe part of their price
// longer than grace after their balance date: their workflow should have cancelled them (a
// lost workflow is booking_without_workflow's, which resumes it, and the resumed run lapses it).
// Reported for an operator, never repaired here: a cancel moves money.
func (s *Store) BalancesPastDue(ctx context.Context, grace time.Duration) ([]domain.Finding, error) {
	overdue, err := s.bookingsWhere(ctx, `b.status = 'CONFIRMED' AND b.balance_due_at < now() - $1 * interval '1 microsecond'
		AND `+planOwed+` > 0`, grace.Microseconds())
	out := make([]domain.Finding, 0, len(overdue))
	for _, b := range overdue {
		out = append(out, domain.Finding{Check: domain.CheckBalancePastDue, BookingID: b.ID,
			Detail: fmt.Sprintf("owes %d %s of its price since its balance date %s and is still confirmed",
				b.PlanBalance(), b.Price.Currency, b.BalanceDueAt.Format(time.RFC3339))})
	}
	return out, err
}
