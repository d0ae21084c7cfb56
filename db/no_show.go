package db

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// RefundNoShow is the kind of the refund a no-show gives back by its plan's no-show terms.
const RefundNoShow = "no_show"

// NoShowKey is the idempotency key of the refund of a no-show of a stay checking in on checkIn:
// one per booking. No client key holds "@".
func NoShowKey(checkIn domain.Date) string { return "no-show@" + checkIn.String() }

// NoShowOutcome is what Store.MarkNoShow did.
type NoShowOutcome struct {
	Booking domain.Booking
	// Refund is what the booking's no-show terms give back of what it keeps (in its currency):
	// the workflow makes it under NoShowKey(Booking.CheckIn).
	Refund int64
	// SlotClosed: a closed unit is among those the booking holds (asked by
	// MarkNoShowUnlessClosed), so it is not a no-show: nothing changed.
	SlotClosed bool `json:",omitempty"`
}

// MarkNoShow moves a confirmed booking nobody checked in to NO_SHOW and gives its units back, as
// Store.NoShow does, and in the same transaction computes what its plan's no-show terms (kept
// with the booking: PlanTerms.NoShowKeeps) give back of what it keeps of its payments: its paid,
// never more than its ledger's kept. A booking checked in meanwhile is returned as it is, with
// nothing to give back. Asked again before the refund was recorded (an attempt whose answer was
// lost), the answer is the first one's; once it is recorded, nothing.
func (s *Store) MarkNoShow(ctx context.Context, bookingID string) (NoShowOutcome, error) {
	return s.markNoShow(ctx, bookingID, false)
}

// MarkNoShowUnlessClosed is MarkNoShow, except for a venue booking one of whose units was closed
// (a court shut by rain): its guest could not come, so it is returned as it is, SlotClosed.
func (s *Store) MarkNoShowUnlessClosed(ctx context.Context, bookingID string) (NoShowOutcome, error) {
	return s.markNoShow(ctx, bookingID, true)
}

func (s *Store) markNoShow(ctx context.Context, bookingID string, unlessClosed bool) (NoShowOutcome, error) {
	var out NoShowOutcome
	err := s.inBookingTx(ctx, bookingID, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT 1 FROM bookings WHERE id = $1 FOR UPDATE`, bookingID); err != nil {
			return err
		}
		var status domain.Status
		if err := tx.QueryRow(ctx, `SELECT status FROM bookings WHERE id = $1`, bookingID).Scan(&status); err != nil {
			return err
		}
		// Only a booking still waiting for its guest is excused: one marked before (an answer
		// lost, asked again after its freed slot was closed) stays the no-show it is.
		if unlessClosed && status == domain.StatusConfirmed {
			closed, err := closedUnitsHeld(ctx, tx, bookingID)
			if err != nil {
				return err
			}
			if closed {
				out.SlotClosed = true
				out.Booking, err = getBooking(ctx, tx, bookingID)
				return err
			}
		}
		// A guest who departed early came: never a no-show, whatever a resumed workflow remembers.
		tag, err := tx.Exec(ctx, `UPDATE bookings b SET status = 'NO_SHOW', updated_at = now()
			WHERE b.id = $1 AND b.status = 'CONFIRMED' AND b.departure_refund IS NULL AND b.checked_out_at IS NULL
				AND NOT EXISTS (SELECT 1 FROM staff_refunds r WHERE r.booking_id = b.id AND r.kind = 'early_departure')`, bookingID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			if err := giveBack(ctx, tx, bookingID); err != nil {
				return err
			}
		}
		if out.Booking, err = getBooking(ctx, tx, bookingID); err != nil || out.Booking.Status != domain.StatusNoShow {
			return err
		}
		b := out.Booking
		var kept int64
		var refunded bool
		if err := tx.QueryRow(ctx, `SELECT COALESCE((SELECT kept FROM money_kept_by_booking WHERE booking_id = $1), 0),
				EXISTS (SELECT 1 FROM staff_refunds WHERE id = $2)`,
			bookingID, StaffRefundID(bookingID, NoShowKey(b.CheckIn))).Scan(&kept, &refunded); err != nil || refunded {
			return err
		}
		out.Refund = b.PlanTerms.NoShowRefund(b.Price, min(b.Paid, kept))
		return nil
	})
	return out, err
}
