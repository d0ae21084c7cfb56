package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

const bookingColumns = `b.id, b.customer_id, b.created_by, COALESCE(r.hotel_id, ''), COALESCE(b.venue_id, ''), r.code,
	b.unit_from, b.unit_to, b.quantity, b.status, b.expires_at, b.created_at, b.updated_at, b.fingerprint,
	COALESCE(b.currency, ''), COALESCE(b.total, 0), b.nightly_rates, b.line_prices, COALESCE(b.payment_id, ''), b.paid,
	b.refund_due, COALESCE(b.policy, '{}'), COALESCE(b.time_zone, 'UTC'), b.abandoned,
	COALESCE(b.channel_id, ''), COALESCE(b.agent_id, ''), b.discount, COALESCE(b.refusal, ''), COALESCE(b.supplier_id, ''),
	COALESCE(b.supplier_ref, ''),
	COALESCE((SELECT m.difference FROM booking_amendments m WHERE m.booking_id = b.id AND m.status = 'BALANCE_DUE'), 0),
	(SELECT m.due_by FROM booking_amendments m WHERE m.booking_id = b.id AND m.status = 'BALANCE_DUE'),
	b.rate_plan, b.plan_terms, b.balance_due_at, ` + planOwed + `, COALESCE(b.balance_due_at > now(), false),
	b.card_guarantee IS NOT NULL, b.guarantee_fee, COALESCE(b.block_id, ''),
	COALESCE((SELECT k.group_code FROM blocks k WHERE k.id = b.block_id), ''), b.checked_out_at, COALESCE(b.checked_out_by, '')`

// planOwed is what a booking confirmed by a deposit plan's deposit still owes of its price: the
// price less what its kept payments brought (a refund given since is not owed back), while it
// has a balance date (0 otherwise, and for any other status).
const planOwed = `CASE WHEN b.balance_due_at IS NOT NULL AND b.status = 'CONFIRMED'
	THEN GREATEST(COALESCE(b.total, 0) - ` + received + ` + ` + reversed + `, 0) ELSE 0 END`

func scanBooking(row pgx.Row) (domain.Booking, error) {
	var b domain.Booking
	var from, to time.Time
	var dueBy, planDueAt *time.Time
	var owed int64
	var depositOpen bool
	var checkedOut *time.Time
	err := row.Scan(&b.ID, &b.CustomerID, &b.CreatedBy, &b.HotelID, &b.VenueID, &b.RoomTypeID, &from, &to,
		&b.Quantity, &b.Status, &b.ExpiresAt, &b.CreatedAt, &b.UpdatedAt, &b.Fingerprint,
		&b.Price.Currency, &b.Price.Total, &b.Price.Nights, &b.Price.Lines, &b.PaymentID, &b.Paid, &b.RefundDue,
		&b.CancellationPolicy, &b.TimeZone, &b.Abandoned, &b.ChannelID, &b.AgentID, &b.Discount, &b.Refusal, &b.SupplierID, &b.SupplierRef,
		&b.BalanceDue, &dueBy, &b.RatePlan, &b.PlanTerms, &planDueAt, &owed, &depositOpen, &b.Guaranteed, &b.Fee,
		&b.BlockID, &b.GroupCode, &checkedOut, &b.CheckedOutBy)
	if checkedOut != nil {
		b.CheckedOutAt = checkedOut.UTC()
	}
	if dueBy != nil {
		b.BalanceDueBy = dueBy.UTC()
	}
	if planDueAt != nil {
		b.BalanceDueAt, b.PlanOwed = planDueAt.UTC(), &owed
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return b, fmt.Errorf("%w: no such booking", domain.ErrNotFound)
	}
	b.CheckIn = domain.DateOf(from, time.UTC)
	b.CheckOut = domain.DateOf(to, time.UTC)
	if depositOpen { // past its balance date, a hold is paid in full
		b.Deposit = b.DepositDue()
	}
	return b, err
}

// GetBooking loads one booking.
func (s *Store) GetBooking(ctx context.Context, id string) (domain.Booking, error) {
	return getBooking(ctx, s.pool, id)
}

func getBooking(ctx context.Context, q querier, id string) (domain.Booking, error) {
	return scanBooking(q.QueryRow(ctx, `SELECT `+bookingColumns+`
		FROM bookings b JOIN resources r ON r.id = b.resource_id WHERE b.id = $1`, id))
}

// Release moves an unpaid booking that holds inventory to status to (EXPIRED or CANCELLED) and
// gives its units back, in one transaction. Releasing a booking already in status to changes
// nothing; a paid booking, or one in any other state, is a conflict.
func (s *Store) Release(ctx context.Context, bookingID string, to domain.Status) (domain.Booking, error) {
	if to != domain.StatusExpired && to != domain.StatusCancelled {
		return domain.Booking{}, fmt.Errorf("%w: cannot release into %s", domain.ErrInvalid, to)
	}
	return s.release(ctx, bookingID, to, "")
}

// Reject gives the units of a hold its supplier refused back and moves it to REJECTED, with the
// supplier's reason as its refusal. Rejecting it again changes nothing.
func (s *Store) Reject(ctx context.Context, bookingID, refusal string) (domain.Booking, error) {
	return s.release(ctx, bookingID, domain.StatusRejected, refusal)
}

func (s *Store) release(ctx context.Context, bookingID string, to domain.Status, refusal string) (domain.Booking, error) {
	var booking domain.Booking
	err := s.inBookingTx(ctx, bookingID, func(tx pgx.Tx) error {
		// A paid booking is never just released: it is refunded (StartRefund).
		tag, err := tx.Exec(ctx, `UPDATE bookings SET status = $2, refusal = COALESCE(NULLIF($4, ''), refusal), updated_at = now()
			WHERE id = $1 AND status = ANY($3) AND status IN ('HOLD', 'CONFIRMED', 'COMPLETED') AND paid = 0`,
			bookingID, to, domain.Sources(to), refusal)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			if err := giveBack(ctx, tx, bookingID); err != nil {
				return err
			}
		}
		booking, err = getBooking(ctx, tx, bookingID)
		if err == nil && booking.Status != to {
			err = fmt.Errorf("%w: booking %s is %s and cannot become %s", domain.ErrConflict, bookingID, booking.Status, to)
		}
		return err
	})
	return booking, err
}

// CheckIn moves a confirmed booking to COMPLETED: staff checked its guest in. Its units stay
// taken. Checking a COMPLETED booking in again changes nothing; anything else is a conflict.
func (s *Store) CheckIn(ctx context.Context, bookingID string) (domain.Booking, error) {
	return s.move(ctx, bookingID, domain.StatusConfirmed, domain.StatusCompleted)
}

// move moves a booking that holds no lock on anything from status from to status to; one
// already in to is left as it is. It returns the booking as it stands; any other status is a
// conflict.
func (s *Store) move(ctx context.Context, bookingID string, from, to domain.Status) (domain.Booking, error) {
	// The actor is set in the statement's own transaction, for the history trigger.
	if _, err := s.pool.Exec(ctx, `UPDATE bookings SET status = $3, updated_at = now()
		FROM (SELECT set_config('bookflow.actor', $4, true)) AS actor
		WHERE id = $1 AND status = $2`, bookingID, from, to, actorOf(ctx)); err != nil {
		return domain.Booking{}, err
	}
	b, err := s.GetBooking(ctx, bookingID)
	if err == nil && b.Status != to {
		err = fmt.Errorf("%w: booking %s is %s, not %s, and cannot become %s", domain.ErrConflict, bookingID, b.Status, from, to)
	}
	return b, err
}

// NoShow moves a confirmed booking nobody checked in to NO_SHOW and gives its units back, in one
// transaction; the payment is kept. A booking checked in meanwhile (or already NO_SHOW) is left
// as it is and returned.
func (s *Store) NoShow(ctx context.Context, bookingID string) (domain.Booking, error) {
	var booking domain.Booking
	err := s.inBookingTx(ctx, bookingID, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE bookings SET status = 'NO_SHOW', updated_at = now()
			WHERE id = $1 AND status = 'CONFIRMED'`, bookingID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			if err := giveBack(ctx, tx, bookingID); err != nil {
				return err
			}
		}
		booking, err = getBooking(ctx, tx, bookingID)
		return err
	})
	return booking, err
}

// Confirm moves a booking from HOLD to CONFIRMED, only while its hold has not expired by the
// database's clock, recording the payment when there is one (nil: confirmed without online
// payment, e.g. paid at the desk). Confirming a CONFIRMED booking again with the same payment
// changes nothing; anything else is a conflict.
func (s *Store) Confirm(ctx context.Context, bookingID string, pay *domain.Payment) (domain.Booking, error) {
	var payID *string
	var paid int64
	var payCurrency string
	if pay != nil {
		payID, paid, payCurrency = &pay.ID, pay.Amount, pay.Currency
	}
	// A payment confirms only the price the booking has now: one for a price changed since is
	// not its price (ChangePrice takes the same row lock).
	// A payment after a desk deposit pays the rest: the booking keeps both (the deposit by its
	// method, see received).
	// One statement answers the confirmed booking: a confirmation is on every booking's path.
	// A booking confirmed by its whole price, or by a person without money, owes no plan balance.
	booking, err := scanBooking(s.pool.QueryRow(ctx, `UPDATE bookings b SET status = 'CONFIRMED',
			payment_id = COALESCE($2, b.payment_id), paid = b.paid + $3, updated_at = now(), balance_due_at = NULL
		FROM resources r, (SELECT set_config('bookflow.actor', $4, true)) AS actor
		WHERE b.id = $1 AND r.id = b.resource_id AND b.status = 'HOLD' AND b.expires_at > now()
			AND ($2::text IS NULL OR (b.total = b.paid + $3 AND b.currency = $5))
		RETURNING `+bookingColumns, bookingID, payID, paid, actorOf(ctx), payCurrency))
	if !errors.Is(err, domain.ErrNotFound) {
		return booking, err
	}
	booking, err = s.GetBooking(ctx, bookingID)
	if err != nil || (booking.Status == domain.StatusConfirmed && (pay == nil || booking.PaymentID == pay.ID)) {
		return booking, err
	}
	if booking.Status == domain.StatusHold && pay != nil && booking.PaysDeposit(pay.Amount, pay.Currency) {
		return s.confirmByDeposit(ctx, booking, *pay)
	}
	if booking.Status == domain.StatusHold && pay != nil && (pay.Currency != booking.Price.Currency ||
		pay.Amount != booking.Price.Total-booking.Paid) {
		return booking, fmt.Errorf("%w: a payment of %d %s does not pay the %d %s booking %s has due", domain.ErrConflict,
			pay.Amount, pay.Currency, booking.Price.Total-booking.Paid, booking.Price.Currency, bookingID)
	}
	if booking.Status == domain.StatusHold {
		return booking, fmt.Errorf("%w: the hold on booking %s expired at %s", domain.ErrConflict,
			bookingID, booking.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return booking, fmt.Errorf("%w: booking %s is %s and cannot be confirmed", domain.ErrConflict, bookingID, booking.Status)
}

// EarlyDeparture is what Store.DepartEarly did.
type EarlyDeparture struct {
	Begun   bool // the stay had begun: the cancel was an early departure
	Booking domain.Booking
	// Nights is how many nights the guest will not stay; Refund what the booking's policy gives
	// back for them (in its currency, never more than it keeps). The refund is not made here:
	// the workflow makes it under EarlyDepartureKey(Booking.CheckOut).
	Nights int
	Refund int64
}

// EarlyDepartureKey is the idempotency key of the refund of an early departure that moved the
// check-out to checkOut: one refund per departure, even if the guest were to leave earlier still.
func EarlyDepartureKey(checkOut domain.Date) string { return "early-departure@" + checkOut.String() }

// DepartEarly applies a cancel accepted at instant at to a confirmed booking whose stay has begun
// by then (the check-in date or later at the hotel): an early departure. The guest keeps that
// night, the nights after it go back on sale (locked in ascending order) and the booking's
// check-out moves, in one transaction; the price and payment stay, and the refund the booking's
// policy gives for the nights not stayed is computed. Begun is false, and nothing changes, when
// the booking is not confirmed or its stay has not begun: the cancel is an ordinary one. On the
// last night, or asked again, there is nothing more to give back; asked again the same day
// before that departure's refund was recorded (an attempt whose answer was lost), the answer is
// the first one's, so the refund is not lost.
func (s *Store) DepartEarly(ctx context.Context, bookingID string, at time.Time) (EarlyDeparture, error) {
	return s.departEarly(ctx, bookingID, at, false)
}

// CheckOutEarly is DepartEarly for a guest checked out at at (issue 39): the stay ends that day
// at the hotel, so tonight is not stayed either (a morning check-out before the last night);
// on the check-in day it keeps its first night.
func (s *Store) CheckOutEarly(ctx context.Context, bookingID string, at time.Time) (EarlyDeparture, error) {
	return s.departEarly(ctx, bookingID, at, true)
}

func (s *Store) departEarly(ctx context.Context, bookingID string, at time.Time, endsToday bool) (EarlyDeparture, error) {
	var out EarlyDeparture
	err := s.inBookingTx(ctx, bookingID, func(tx pgx.Tx) error {
		b, err := scanBooking(tx.QueryRow(ctx, `SELECT `+bookingColumns+`
			FROM bookings b JOIN resources r ON r.id = b.resource_id WHERE b.id = $1 FOR UPDATE OF b`, bookingID))
		if err != nil {
			return err
		}
		out = EarlyDeparture{Booking: b}
		today, err := b.TodayAtHotel(at)
		if err != nil || !b.Status.Used() || today.Before(b.CheckIn) || b.VenueID != "" {
			return err
		}
		out.Begun = true
		lapsed, err := lapseExtras(ctx, tx, b, "the guest departed early")
		if err != nil {
			return err
		}
		checkOut := today.AddDays(1) // a cancel: the guest keeps tonight
		if endsToday {
			checkOut = today
			if !checkOut.After(b.CheckIn) {
				checkOut = b.CheckIn.AddDays(1)
			}
		}
		switch {
		case checkOut.After(b.CheckOut):
			return nil // already shortened: nothing to give back
		case !checkOut.Before(b.CheckOut):
			return departedBefore(ctx, tx, &out, checkOut) // the last night, or asked again today
		}
		released := line{from: checkOut.Time(), to: b.CheckOut.Time(), quantity: b.Quantity}
		var elsewhere bool // a direct_connect supplier holds the rooms: nothing to give back here
		if err := tx.QueryRow(ctx, `SELECT resource_id, supplier_held FROM bookings WHERE id = $1`, bookingID).Scan(
			&released.resourceID, &elsewhere); err != nil {
			return err
		}
		if !elsewhere {
			if err := giveBackReleased(ctx, tx, bookingID, released, lapsed); err != nil {
				return err
			}
		}
		// What the policy gives up of the nights not stayed comes off the price: the part paid for
		// goes back (the refund, which StartStaffRefund takes off the price), the rest here. The
		// refund is kept with the new check-out, for the answer asked again (departedBefore).
		given, refund, err := departureMoney(ctx, tx, b, checkOut)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE bookings SET unit_to = $2, departure_refund = $3, updated_at = now() WHERE id = $1`,
			bookingID, checkOut.Time(), refund); err != nil {
			return err
		}
		out.Nights = checkOut.DaysUntil(b.CheckOut)
		out.Refund = refund
		if unpaid := given - out.Refund; unpaid > 0 {
			p := b.Price.LessLastNights(unpaid)
			if _, err := tx.Exec(ctx, `UPDATE bookings SET total = $2, nightly_rates = $3 WHERE id = $1`,
				bookingID, p.Total, p.Nights); err != nil {
				return err
			}
		}
		out.Booking, err = getBooking(ctx, tx, bookingID)
		return err
	})
	return out, err
}

// giveBackReleased gives back the nights an early departure released and offers them to the
// waitlist: with the entries' locks taken first, unless a lapsed amendment locked units already
// (they are then only tried).
func giveBackReleased(ctx context.Context, tx pgx.Tx, bookingID string, released line, locked bool) error {
	if locked {
		if err := lockLines(ctx, tx, []line{released}); err != nil {
			return err
		}
		if err := giveBackLine(ctx, tx, bookingID, released); err != nil {
			return err
		}
		return offerAfterLocks(ctx, tx, []line{released})
	}
	waiting, err := lockForGiveBack(ctx, tx, []line{released})
	if err != nil {
		return err
	}
	if err := giveBackLine(ctx, tx, bookingID, released); err != nil {
		return err
	}
	return offerFreed(ctx, tx, []line{released}, waiting)
}

// departedBefore answers an early departure asked again the day the check-out already moved to
// checkOut: while that departure's refund is not recorded, with the nights of the price from
// checkOut on (the nights it gave back; a price keeps its nights when the stay is shortened) and
// the refund that departure decided. On the stay's own last night there are none.
func departedBefore(ctx context.Context, tx pgx.Tx, out *EarlyDeparture, checkOut domain.Date) error {
	b := out.Booking
	var refunded bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM staff_refunds WHERE id = $1)`,
		StaffRefundID(b.ID, EarlyDepartureKey(checkOut))).Scan(&refunded); err != nil || refunded {
		return err
	}
	var kept *int64 // the refund the departure to checkOut decided (migration 00056)
	if err := tx.QueryRow(ctx, `SELECT departure_refund FROM bookings WHERE id = $1 AND unit_to = $2`, b.ID,
		checkOut.Time()).Scan(&kept); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	end := checkOut
	for _, n := range b.Price.Nights {
		if !n.Date.Before(checkOut) {
			out.Nights++
			if !n.Date.Before(end) {
				end = n.Date.AddDays(1)
			}
		}
	}
	switch {
	case out.Nights > 0 && kept != nil:
		out.Refund = *kept
	case out.Nights > 0: // a departure recorded before the refund was kept: recomputed
		out.Refund = b.CancellationPolicy.EarlyDepartureRefund(b.Price, checkOut, end, b.Paid)
	}
	return nil
}
