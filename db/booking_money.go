package db

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// Retake confirms an EXPIRED booking whose payment arrived late, if everything a new hold judges
// allows it now (the hotel's sale rules, under the same sale lock; stock, closures, rates and
// allocations on every line of it, under the normal lock); otherwise it changes nothing and
// fails with ErrUnavailable. The price stays the snapshot taken with the hold.
//
// A hold the desk took a deposit for is never just released, so when its hold ran out (by the
// database's clock) it is still HOLD with its units: pay, the rest of its price, confirms it the
// same way, the booking keeping both (paid = price). Its units are given back and taken again
// in the transaction, judged as an expired booking's.
func (s *Store) Retake(ctx context.Context, bookingID string, pay domain.Payment) (domain.Booking, error) {
	var booking domain.Booking
	err := s.inBookingTx(ctx, bookingID, func(tx pgx.Tx) error {
		var was domain.Status
		err := tx.QueryRow(ctx, `SELECT status FROM bookings WHERE id = $1 FOR UPDATE`, bookingID).Scan(&was)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		// A supplier's booking is never taken again: the supplier was told it is off.
		tag, err := tx.Exec(ctx, `UPDATE bookings SET status = 'CONFIRMED', payment_id = $2, paid = paid + $3, updated_at = now()
			WHERE id = $1 AND supplier_id IS NULL AND (status = 'EXPIRED'
				OR (status = 'HOLD' AND expires_at <= now() AND paid > 0 AND total = paid + $3 AND currency = $4))`,
			bookingID, pay.ID, pay.Amount, pay.Currency)
		if pgCode(err) == codeUniqueViolation {
			// The customer holds another active order for the slot: this payment goes back.
			return fmt.Errorf("%w: the customer holds another order for the slot of booking %s", domain.ErrUnavailable, bookingID)
		}
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			booking, err = getBooking(ctx, tx, bookingID)
			if err == nil && booking.SupplierID != "" && booking.Status == domain.StatusExpired {
				return fmt.Errorf("%w: booking %s's supplier was told it is off", domain.ErrUnavailable, bookingID)
			}
			if err == nil && (booking.Status != domain.StatusConfirmed || booking.PaymentID != pay.ID) {
				err = fmt.Errorf("%w: booking %s is %s and cannot be taken again", domain.ErrConflict, bookingID, booking.Status)
			}
			return err
		}
		if booking, err = getBooking(ctx, tx, bookingID); err != nil {
			return err
		}
		if booking.BlockID == "" { // a group's pickup is judged by its block, not the sale rules
			if err := judgeRetake(ctx, tx, booking); err != nil {
				return err
			}
		}
		lines, err := bookingLines(ctx, tx, bookingID)
		if err != nil {
			return err
		}
		if err := lockLines(ctx, tx, lines); err != nil {
			return err
		}
		for i := 0; was == domain.StatusHold && i < len(lines); i++ {
			if err := giveBackLine(ctx, tx, bookingID, lines[i]); err != nil { // the deposit hold's own units
				return err
			}
		}
		channel := booking.ChannelID
		if booking.BlockID != "" {
			return retakePickup(ctx, tx, &booking, lines)
		}
		units := make([]int, len(lines))
		for i, l := range lines {
			st, err := lineAvailable(ctx, tx, l)
			if err != nil {
				return err
			}
			ok := st.ok
			if ok && st.allocated {
				// Taken where a new sale by its channel would take it: the allocation, then the pool.
				if ok, err = takeShares(ctx, tx, bookingID, l, channel, nil); err != nil {
					return err
				}
			}
			if !ok {
				return fmt.Errorf("%w: the units of booking %s were sold or closed after its hold expired", domain.ErrUnavailable, bookingID)
			}
			units[i] = st.units
		}
		for i, l := range lines {
			if _, err := takeLine(ctx, tx, l, units[i]); err != nil {
				return err
			}
		}
		booking, err = getBooking(ctx, tx, bookingID)
		return err
	})
	return booking, err
}

// judgeRetake judges a hotel booking's sale rules as a new hold would now, after taking its
// room type's sale lock (the row FOR KEY SHARE, as a new booking row's foreign key takes it: see
// lockSaleRules). Venues have no sale rules.
func judgeRetake(ctx context.Context, tx pgx.Tx, b domain.Booking) error {
	if b.VenueID != "" {
		return nil
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM resources r JOIN bookings b ON b.resource_id = r.id
		WHERE b.id = $1 FOR KEY SHARE OF r`, b.ID); err != nil {
		return err
	}
	v, err := judgeSale(ctx, tx, domain.SaleContext{HotelID: b.HotelID, RoomTypeID: b.RoomTypeID,
		ChannelID: b.ChannelID, AgentID: b.AgentID, Stay: b.Stay})
	if err == nil && !v.Allowed {
		err = fmt.Errorf("%w: booking %s may not be sold again now: %s", domain.ErrUnavailable, b.ID, v.Refusal.Named())
	}
	return err
}

// StartRefund moves a paid booking to REFUNDING with refundDue, releasing its nights first when
// it holds them (a cancelled CONFIRMED booking), all in one transaction. pay records the payment
// being refunded when the booking did not record it yet (a payment for an expired, cancelled or
// rejected booking). refundDue decides from the booking as locked (its policy and time zone are
// the ones it was held under); it is not called again on a retry, which returns the booking as
// already stored.
func (s *Store) StartRefund(ctx context.Context, bookingID string, pay *domain.Payment,
	refundDue func(b domain.Booking) (int64, error)) (domain.Booking, error) {
	var booking domain.Booking
	err := s.inBookingTx(ctx, bookingID, func(tx pgx.Tx) (err error) {
		booking, err = startRefund(ctx, tx, bookingID, pay, refundDue)
		return err
	})
	if err != nil {
		return domain.Booking{}, err
	}
	return booking, nil
}

// startRefund is StartRefund's step in tx.
func startRefund(ctx context.Context, tx pgx.Tx, bookingID string, pay *domain.Payment,
	refundDue func(b domain.Booking) (int64, error)) (domain.Booking, error) {
	b, err := scanBooking(tx.QueryRow(ctx, `SELECT `+bookingColumns+`
		FROM bookings b JOIN resources r ON r.id = b.resource_id WHERE b.id = $1 FOR UPDATE OF b`, bookingID))
	if err != nil || b.Status == domain.StatusRefunding || b.Status == domain.StatusRefunded {
		return b, err
	}
	if !slices.Contains(domain.Sources(domain.StatusRefunding), b.Status) {
		return b, fmt.Errorf("%w: booking %s is %s and cannot be refunded", domain.ErrConflict, bookingID, b.Status)
	}
	if pay != nil && b.PaymentID == "" {
		b.PaymentID, b.Paid = pay.ID, pay.Amount
	}
	if b.Paid == 0 {
		return b, fmt.Errorf("%w: booking %s has no payment to refund", domain.ErrConflict, bookingID)
	}
	due, err := refundDue(b)
	if err != nil {
		return b, err
	}
	due = min(max(due, 0), b.Paid)
	if b.Status.HoldsInventory() {
		if err := giveBack(ctx, tx, bookingID); err != nil {
			return b, err
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE bookings SET status = 'REFUNDING', payment_id = $2, paid = $3,
			refund_due = $4, updated_at = now() WHERE id = $1`, bookingID, b.PaymentID, b.Paid, due); err != nil {
		return b, err
	}
	return getBooking(ctx, tx, bookingID)
}

// FinishRefund moves a REFUNDING booking to REFUNDED; a REFUNDED one is left as it is.
func (s *Store) FinishRefund(ctx context.Context, bookingID string) (domain.Booking, error) {
	return s.move(ctx, bookingID, domain.StatusRefunding, domain.StatusRefunded)
}
