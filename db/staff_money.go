package db

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// DeskPayment is money the front desk took for a booking: its own payment row, by method, under
// the desk's idempotency key.
type DeskPayment struct {
	BookingID string `json:"bookingId"`
	Key       string `json:"key"`
	Amount    int64  `json:"amount"`
	Currency  string `json:"currency"`
	Method    string `json:"method"`
	Note      string `json:"note,omitempty"`
	TakenBy   string `json:"takenBy"`
}

// received is what a booking's kept payments brought, before any refund: its first payment,
// the balances of its amendments and the money its desk took. Payments it gave back whole (a
// second payment, a wrong amount) are not its own.
const received = `(SELECT COALESCE(sum(p.amount), 0) FROM payments p WHERE p.booking_id = b.id AND p.status = 'succeeded'
	AND p.payment_id IN ` + keptPaymentIDs + `)`

// keptPaymentIDs are the ids of booking b's kept payments: its payment, the desk's, its
// amendments' balances, a deposit plan's balance, the fee charged to its guarantee card.
const keptPaymentIDs = `(SELECT b.payment_id UNION SELECT p.payment_id FROM payments p WHERE p.booking_id = b.id
	AND p.method <> 'provider' UNION SELECT m.balance_payment_id FROM booking_amendments m WHERE m.booking_id = b.id
	AND m.balance_payment_id IS NOT NULL UNION SELECT b.balance_payment_id UNION SELECT b.guarantee_fee->>'paymentId')`

// owedUnrecorded is what booking b gave up of its kept payments (refunds that kept its units, a
// lower price, its refund due) that no refund made or under way covers: for a REFUNDED booking, a
// refund an operator resolved as made by hand before resolutions were recorded.
const owedUnrecorded = `(` + received + ` - b.paid + CASE WHEN b.status IN ('REFUNDING', 'REFUNDED') THEN b.refund_due ELSE 0 END
	- COALESCE((SELECT sum(f.amount) FROM refunds f WHERE f.booking_id = b.id AND f.status <> 'failed'
		AND f.payment_id IN ` + keptPaymentIDs + `), 0))`

// reversed is what booking b's reversals of desk payments gave back: due again.
const reversed = `(SELECT COALESCE(sum(r.amount), 0) FROM staff_refunds r WHERE r.booking_id = b.id AND r.kind = 'reversal')`

// lowered is what booking b gave back with a lower price: an amendment's refund and an early
// departure's (the ledger's refunds asked for those causes). The price fell with them, so that
// money pays nothing of what the booking costs now; a goodwill refund is a gift and still does.
const lowered = `(SELECT COALESCE(sum(l.amount), 0) FROM money_ledger l WHERE l.booking_id = b.id
	AND l.kind = 'refund_asked' AND l.cause IN ('amendment', 'early_departure'))`

// brought is what booking b's money pays of what it costs now: what its kept payments brought,
// less what reversals and a lower price gave back (a desk payment and an early departure read it).
const brought = received + ` - ` + reversed + ` - ` + lowered

// lockedMoney is what lockBookingMoney reads of a locked booking's money.
type lockedMoney struct {
	got    int64 // what its kept payments brought, less what reversals and a lower price gave back
	extras int64 // what its live extras charge it (the folio, db/folio.go)
	live   bool  // its hold has not expired by the database's clock
}

// lockBookingMoney locks a booking's row and returns it with its money.
func lockBookingMoney(ctx context.Context, tx pgx.Tx, bookingID string) (domain.Booking, lockedMoney, error) {
	var m lockedMoney
	if _, err := tx.Exec(ctx, `SELECT 1 FROM bookings WHERE id = $1 FOR UPDATE`, bookingID); err != nil {
		return domain.Booking{}, m, err
	}
	b, err := getBooking(ctx, tx, bookingID)
	if err != nil {
		return b, m, err
	}
	err = tx.QueryRow(ctx, `SELECT `+brought+`, `+extrasCharged+`, b.expires_at > now() FROM bookings b
		WHERE b.id = $1`, bookingID).Scan(&m.got, &m.extras, &m.live)
	return b, m, err
}

// TakeDeskPayment records money the desk took for a held or confirmed booking, and confirms a
// hold (not expired by the database's clock) whatever part of its price it pays: a guest who
// left money at the desk keeps the booking (issue 39), never a hold that runs out with the cash
// in the drawer. What is left of the price is due: by the balance date of a deposit plan still
// ahead (domain/plan_balance.go), otherwise at the desk (the folio's balance, with its extras:
// db/folio.go). All in one
// transaction: two payments racing for the same balance take it once, and the second is
// refused. A payment is never above what is due. Its key is claimed in the booking's key space
// (claimMoneyCommand): the same key again with the same payment changes nothing; with another
// payment, or another command, it is ErrIdempotencyMismatch.
func (s *Store) TakeDeskPayment(ctx context.Context, p DeskPayment) (domain.Booking, error) {
	return s.takeDeskPayment(ctx, p, confirmByDeskPayment)
}

// confirmByDeskPayment adds desk payment id of amount to booking b, whose price still wanted due
// before it, and confirms a hold. A deposit plan's balance date still ahead stays the date the
// rest is due by; a hold paid whole, or whose date has passed, owes the rest (if any) at the
// desk, with no date that lapses it.
func confirmByDeskPayment(ctx context.Context, tx pgx.Tx, b domain.Booking, id string, amount, due int64) error {
	_, err := tx.Exec(ctx, `UPDATE bookings SET paid = paid + $2, payment_id = COALESCE(payment_id, $3),
			status = CASE WHEN status = 'HOLD' THEN 'CONFIRMED' ELSE status END,
			balance_due_at = CASE WHEN status = 'HOLD' AND ($4 OR balance_due_at <= now()) THEN NULL ELSE balance_due_at END,
			updated_at = now()
		WHERE id = $1`, b.ID, amount, id, amount == due)
	return err
}

// deskSettle adds a desk payment to its booking's row (confirmByDeskPayment; the tests keep the
// previous release's, which left a hold a deposit did not cover on hold, to make its bookings).
type deskSettle func(ctx context.Context, tx pgx.Tx, b domain.Booking, id string, amount, due int64) error

func (s *Store) takeDeskPayment(ctx context.Context, p DeskPayment, settle deskSettle) (domain.Booking, error) {
	var booking domain.Booking
	id := domain.DeskPaymentID(p.BookingID, p.Key)
	err := s.inBookingTx(ctx, p.BookingID, func(tx pgx.Tx) error {
		if err := cashierMoney(ctx, tx, p.TakenBy); err != nil { // first: db/cash_up_lock.go
			return err
		}
		b, m, err := lockBookingMoney(ctx, tx, p.BookingID)
		if err != nil {
			return err
		}
		booking = b
		if fresh, err := claimMoneyCommand(ctx, tx, DeskPaymentCommand(p)); err != nil || !fresh {
			return err // taken before under this key, or the key holds another command
		}
		// A payment taken before its key was claimed (by the previous release, during an upgrade).
		var amount int64
		var currency, method string
		err = tx.QueryRow(ctx, `SELECT amount, currency, method FROM payments WHERE payment_id = $1`, id).Scan(&amount, &currency, &method)
		switch {
		case err == nil && amount == p.Amount && currency == p.Currency && method == p.Method:
			return nil // taken before under this key
		case err == nil:
			return fmt.Errorf("%w: desk payment key %s of booking %s", domain.ErrIdempotencyMismatch, p.Key, p.BookingID)
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
		if err := deskPayable(b, m.live, p); err != nil {
			return err
		}
		due := max(b.Price.Total+m.extras-m.got, 0) // its price and its extras (the folio)
		if p.Amount > due {
			return fmt.Errorf("%w: booking %s has %d %s due; a desk payment of %d is more", domain.ErrConflict,
				b.ID, due, b.Price.Currency, p.Amount)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO payments (payment_id, booking_id, amount, currency, status, succeeded_at,
				method, taken_by, note) VALUES ($1, $2, $3, $4, 'succeeded', now(), $5, $6, NULLIF($7, ''))`,
			id, b.ID, p.Amount, p.Currency, p.Method, p.TakenBy, p.Note); err != nil {
			return err
		}
		if err := settle(ctx, tx, b, id, p.Amount, due); err != nil {
			return err
		}
		booking, err = getBooking(ctx, tx, b.ID)
		return err
	})
	return booking, err
}

// deskPayable checks that booking b, locked, can take desk payment p: held (and live, not
// expired), confirmed, checked in or a no-show, neither sold on a channel's account nor from a
// supplier's stock, and in its price's currency.
func deskPayable(b domain.Booking, live bool, p DeskPayment) error {
	switch {
	case !b.Status.HoldsInventory() && b.Status != domain.StatusNoShow: // a no-show may still pay what is due
		return fmt.Errorf("%w: booking %s is %s and takes no payment", domain.ErrConflict, b.ID, b.Status)
	case b.ChannelID != "":
		return fmt.Errorf("%w: booking %s was sold on channel %s's account: the channel pays for it", domain.ErrConflict,
			b.ID, b.ChannelID)
	case b.SupplierID != "":
		return fmt.Errorf("%w: booking %s was sold from supplier %s's stock: %s", domain.ErrConflict, b.ID, b.SupplierID,
			domain.SupplierBookingNoDeskPayment)
	case p.Currency != b.Price.Currency:
		return fmt.Errorf("%w: booking %s is priced in %s, not %s", domain.ErrInvalid, b.ID, b.Price.Currency, p.Currency)
	case p.Amount <= 0:
		return fmt.Errorf("%w: a desk payment is more than zero", domain.ErrInvalid)
	case !slices.Contains(domain.DeskMethods, p.Method):
		return fmt.Errorf("%w: method %q is not a desk method", domain.ErrInvalid, p.Method)
	case b.Status == domain.StatusHold && !live:
		return fmt.Errorf("%w: the hold on booking %s has expired", domain.ErrConflict, b.ID)
	}
	return nil
}

// PriceChange is a price staff set by hand on a booking before it was paid.
type PriceChange struct {
	BookingID string `json:"bookingId"`
	Total     int64  `json:"total"`
	Currency  string `json:"currency"`
	Reason    string `json:"reason"`
	Actor     string `json:"actor"`
}

// ChangePrice sets the total of a booking on hold that nothing was paid for (its nights or lines
// scaled to it, see domain.Price.WithTotal), and records the change (before, after, reason,
// who). A payment confirming the booking at the same moment and the change are one after the
// other under the booking's lock: a payment of the old amount then no longer confirms it (see
// Confirm).
func (s *Store) ChangePrice(ctx context.Context, c PriceChange) (domain.Booking, error) {
	var booking domain.Booking
	err := s.inBookingTx(ctx, c.BookingID, func(tx pgx.Tx) error {
		b, m, err := lockBookingMoney(ctx, tx, c.BookingID)
		if err != nil {
			return err
		}
		switch {
		case c.Total < 0:
			return fmt.Errorf("%w: a price is never below zero", domain.ErrInvalid)
		case c.Currency != b.Price.Currency:
			return fmt.Errorf("%w: booking %s is priced in %s, not %s", domain.ErrInvalid, b.ID, b.Price.Currency, c.Currency)
		case c.Reason == "":
			return fmt.Errorf("%w: a price change has a reason", domain.ErrInvalid)
		case b.Status != domain.StatusHold || !m.live:
			return fmt.Errorf("%w: booking %s is %s: only a booking on hold has its price changed", domain.ErrConflict, b.ID, b.Status)
		case b.SupplierID != "" || b.ChannelID != "":
			return fmt.Errorf("%w: booking %s is priced by its supplier or sold on a channel's account", domain.ErrConflict, b.ID)
		case m.got > 0 || b.PaymentID != "":
			return fmt.Errorf("%w: booking %s has payments: its price is changed by an amendment or a refund", domain.ErrConflict, b.ID)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO price_changes (booking_id, before, after, currency, reason, actor)
			VALUES ($1, $2, $3, $4, $5, $6)`, b.ID, b.Price.Total, c.Total, c.Currency, c.Reason, c.Actor); err != nil {
			return err
		}
		// The nights (or lines) follow the total: an amendment that keeps some keeps their share.
		p := b.Price.WithTotal(c.Total)
		if _, err := tx.Exec(ctx, `UPDATE bookings SET total = $2, nightly_rates = $3, line_prices = $4, updated_at = now()
			WHERE id = $1`, b.ID, p.Total, p.Nights, p.Lines); err != nil {
			return err
		}
		booking, err = getBooking(ctx, tx, b.ID)
		return err
	})
	return booking, err
}

// Refund kinds of a refund that keeps the booking's units.
const (
	RefundGoodwill       = "goodwill"
	RefundEarlyDeparture = "early_departure"
	// RefundReversal gives back a desk payment entered by mistake: what it brought is due again.
	RefundReversal = "reversal"
)

// StaffRefund is a refund given on a booking that keeps its units: ID is
// <bookingId>/<idempotency key>, Parts what it draws on each payment (their sum is Amount). Left
// empty, StartStaffRefund draws them on what the ledger says the booking keeps, newest kept
// payment first; a reversal names the one payment it gives back.
type StaffRefund struct {
	ID        string           `json:"id"`
	BookingID string           `json:"bookingId"`
	Kind      string           `json:"kind"`
	Amount    int64            `json:"amount"`
	Currency  string           `json:"currency"`
	Reason    string           `json:"reason"`
	Actor     string           `json:"actor"`
	Parts     []domain.Payment `json:"parts"`
	// Method is how it is given back: "" as each part was paid, or chosen (db/refund_methods.go).
	Method string `json:"method,omitempty"`
	// AwayFromDesk marks a refund asked by someone who is not the booking's desk (finance): each
	// part given back at the desk waits there until someone hands it over (BeginRefundAttempt).
	AwayFromDesk bool `json:"awayFromDesk,omitempty"`
}

// StaffRefundID names a staff refund by its booking and idempotency key.
func StaffRefundID(bookingID, key string) string { return bookingID + "/" + key }

// StaffRefundStep names the refund step of part i of the staff refund under key, drawn on
// payment paymentID, in its attempts' keys: staff-<key>, then staff-<key>@<paymentId>. An
// idempotency key never holds "@", so two refunds' steps never meet.
func StaffRefundStep(key string, i int, paymentID string) string {
	if i == 0 {
		return "staff-" + key
	}
	return "staff-" + key + "@" + paymentID
}

// StartStaffRefund records a refund of a confirmed, checked-in or no-show booking that keeps its
// units, lowering what the booking keeps (paid) by its amount in the same transaction: two
// refunds racing never give back more than was kept. The same id again with the same amount
// returns the refund as first recorded (its parts are the first's); with another amount, or
// under a key another command holds (claimMoneyCommand), it is ErrIdempotencyMismatch.
func (s *Store) StartStaffRefund(ctx context.Context, r StaffRefund) (StaffRefund, domain.Booking, error) {
	var booking domain.Booking
	err := s.inBookingTx(ctx, r.BookingID, func(tx pgx.Tx) error {
		b, _, err := lockBookingMoney(ctx, tx, r.BookingID)
		if err != nil {
			return err
		}
		booking = b
		// The key is claimed first: the same refund again reads the first one's row below, and a key
		// another command holds (a desk payment, a cancel) is refused before anything is judged.
		if _, err := claimMoneyCommand(ctx, tx, StaffRefundCommand(r)); err != nil {
			return err
		}
		var stored StaffRefund
		err = tx.QueryRow(ctx, `SELECT id, booking_id, kind, amount, currency, reason, actor, parts, COALESCE(method, ''),
				away_from_desk
			FROM staff_refunds WHERE id = $1`, r.ID).Scan(&stored.ID, &stored.BookingID, &stored.Kind, &stored.Amount,
			&stored.Currency, &stored.Reason, &stored.Actor, &stored.Parts, &stored.Method, &stored.AwayFromDesk)
		switch {
		case err == nil && stored.BookingID == r.BookingID && stored.Kind == r.Kind && stored.Amount == r.Amount &&
			stored.Currency == r.Currency:
			r = stored
			return nil
		case err == nil:
			return fmt.Errorf("%w: refund %s", domain.ErrIdempotencyMismatch, r.ID)
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
		switch {
		case reservedRefundKey(strings.TrimPrefix(r.ID, r.BookingID+"/")):
			return fmt.Errorf("%w: the key %q names the refunds the database draws itself (a cancel's, an amendment's): "+
				"send the refund under another key", domain.ErrInvalid, strings.TrimPrefix(r.ID, r.BookingID+"/"))
		case r.Amount <= 0:
			return fmt.Errorf("%w: a refund of %d", domain.ErrInvalid, r.Amount)
		case r.Currency != b.Price.Currency:
			return fmt.Errorf("%w: booking %s is paid in %s, not %s", domain.ErrInvalid, b.ID, b.Price.Currency, r.Currency)
		case r.Reason == "":
			return fmt.Errorf("%w: a refund has a reason", domain.ErrInvalid)
		case !b.Status.Used() && b.Status != domain.StatusNoShow && !(r.Kind == RefundReversal && b.Status == domain.StatusHold) &&
			!((b.Status == domain.StatusCancelled || b.Status == domain.StatusRefunded) && b.Fee != nil && b.Fee.Status == domain.FeePaid):
			return fmt.Errorf("%w: booking %s is %s: a refund that keeps its units is for a confirmed, checked-in or "+
				"no-show booking, or the fee a cancelled one's card paid", domain.ErrConflict, b.ID, b.Status)
		case b.Status == domain.StatusRefunded && r.Amount > b.Paid-b.RefundDue:
			return fmt.Errorf("%w: booking %s keeps %d %s after its cancel's refund; a refund of %d is more", domain.ErrConflict,
				b.ID, b.Paid-b.RefundDue, b.Price.Currency, r.Amount)
		case r.Amount > b.Paid:
			return fmt.Errorf("%w: booking %s keeps %d %s of what was paid; a refund of %d is more", domain.ErrConflict,
				b.ID, b.Paid, b.Price.Currency, r.Amount)
		}
		if len(r.Parts) == 0 && r.Kind != RefundReversal {
			if r.Parts, err = drawOnKept(ctx, tx, b.ID, r.Amount); err != nil {
				return err
			}
		}
		var drawn int64
		for _, p := range r.Parts {
			drawn += p.Amount
		}
		if drawn != r.Amount {
			return fmt.Errorf("%w: a refund of %d drawn as %d", domain.ErrInvalid, r.Amount, drawn)
		}
		if err := checkParts(ctx, tx, b.ID, r.Parts); err != nil {
			return err
		}
		if err := checkRefundMethod(ctx, tx, r); err != nil {
			return err
		}
		if r.Kind == RefundReversal {
			var method string
			if len(r.Parts) != 1 {
				return fmt.Errorf("%w: a reversal gives back one payment", domain.ErrInvalid)
			}
			if err := tx.QueryRow(ctx, `SELECT method FROM payments WHERE payment_id = $1`, r.Parts[0].ID).Scan(&method); err != nil {
				return err
			}
			if method == domain.MethodProvider {
				return fmt.Errorf("%w: payment %s was taken by the provider: only a desk payment is reversed", domain.ErrInvalid, r.Parts[0].ID)
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO staff_refunds (id, booking_id, kind, amount, currency, reason, actor, parts, method,
				away_from_desk)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULLIF($9, ''), $10)`, r.ID, r.BookingID, r.Kind, r.Amount, r.Currency, r.Reason,
			r.Actor, r.Parts, r.Method, r.AwayFromDesk); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE bookings SET paid = paid - $2, updated_at = now() WHERE id = $1`, b.ID, r.Amount); err != nil {
			return err
		}
		if r.Kind == RefundEarlyDeparture {
			// The nights not stayed that were refunded are no longer in the price: a stay extended
			// again pays for them again.
			p := b.Price.LessLastNights(r.Amount)
			if _, err := tx.Exec(ctx, `UPDATE bookings SET total = $2, nightly_rates = $3 WHERE id = $1`, b.ID, p.Total, p.Nights); err != nil {
				return err
			}
		}
		booking, err = getBooking(ctx, tx, b.ID)
		return err
	})
	return r, booking, err
}

// checkParts checks, under booking bookingID's lock, that each part of a refund draws on one of
// its kept payments no more than is left of it: its amount less the staff refunds drawn on it and
// the other refunds made or under way of it. The workflow draws the parts; the database holds
// them to what is there, whatever the workflow believed.
func checkParts(ctx context.Context, tx pgx.Tx, bookingID string, parts []domain.Payment) error {
	for _, part := range parts {
		var left int64
		err := tx.QueryRow(ctx, `SELECT p.amount
				- COALESCE((SELECT sum((e->>'amount')::bigint) FROM staff_refunds r CROSS JOIN jsonb_array_elements(r.parts) e
					WHERE r.booking_id = b.id AND e->>'id' = p.payment_id), 0)
				- COALESCE((SELECT sum(f.amount) FROM refunds f WHERE f.payment_id = p.payment_id AND f.status <> 'failed'
					AND NOT starts_with(f.id, b.id || '/staff-')), 0)
			FROM bookings b JOIN payments p ON p.booking_id = b.id
			WHERE b.id = $1 AND p.payment_id = $2 AND p.status = 'succeeded' AND p.payment_id IN `+keptPaymentIDs,
			bookingID, part.ID).Scan(&left)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w: booking %s keeps no payment %s to refund", domain.ErrConflict, bookingID, part.ID)
		}
		if err != nil {
			return err
		}
		if part.Amount > left {
			return fmt.Errorf("%w: payment %s of booking %s has %d left to refund; a part of %d is more", domain.ErrConflict,
				part.ID, bookingID, left, part.Amount)
		}
	}
	return nil
}

// PriceChangeCount is how many times a booking's price was set by hand: the checkout's payment
// for a changed price is a new one.
func (s *Store) PriceChangeCount(ctx context.Context, bookingID string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM price_changes WHERE booking_id = $1`, bookingID).Scan(&n)
	return n, err
}
