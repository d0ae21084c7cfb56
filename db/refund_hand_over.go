package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// A refund of money the desk took, asked by nobody at the desk (the guest's own cancel or
// amendment, a no-show's refund, a staff refund finance asked: StaffRefund.AwayFromDesk), is never recorded as given back at once: the money is still in
// the drawer. It waits at the desk, pending, until a staff member hands it over and is named as
// who did (issue 39, defect 1); the saga waits for it as for a provider's refund, under
// domain.DeskRefundID. Nobody handing it over within the saga's RefundWait parks it for an
// operator, who may resolve it as made another way (then it never waits at the desk again).

// DueAtTheDesk is the last error of a refund that waits at the desk: why it is not yet given back.
const DueAtTheDesk = "due at the desk: nobody has handed it over yet"

// HandOver is a staff member handing a refund waiting at the desk over to its guest.
type HandOver struct {
	BookingID string
	RefundID  string // the refund attempt's id
	By        string // the staff member who hands it over: it is in their cash-up
	Note      string
}

// ErrNotAtTheDesk refuses to hand over a refund that does not wait at the desk.
var ErrNotAtTheDesk = fmt.Errorf("%w: this refund does not wait at the desk", domain.ErrConflict)

// HandOverRefund records refund h.RefundID of booking h.BookingID as handed over by h.By, now, and
// audits it. It is taken under the staff member's cashier lock (their shift must be open: the
// money leaves their drawer) and its payment's lock (an operator's resolution of the same step
// waits for it, or it for the resolution). Asked again by the same person it answers the refund
// as recorded; a refund another person handed over, one given back another way, or one that
// goes through the provider is refused (ErrNotAtTheDesk).
func (s *Store) HandOverRefund(ctx context.Context, h HandOver) (RefundAttempt, error) {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := cashierMoney(ctx, tx, h.By); err != nil {
			return err
		}
		var paymentID string
		err := tx.QueryRow(ctx, `SELECT payment_id FROM refunds WHERE id = $1 AND booking_id = $2`,
			h.RefundID, h.BookingID).Scan(&paymentID)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w: booking %s has no refund %q", domain.ErrNotFound, h.BookingID, h.RefundID)
		}
		if err != nil {
			return err
		}
		if _, err := lockPaymentLeft(ctx, tx, paymentID, h.RefundID); err != nil {
			return err
		}
		handed, err := handOver(ctx, tx, h.RefundID, h.By, h.Note)
		if err != nil || !handed {
			return err
		}
		return insertAudit(ctx, tx, AuditEntry{Actor: h.By, Action: "refund-handed-over", BookingID: h.BookingID,
			Reason: h.Note, Details: map[string]any{"refundId": h.RefundID, "paymentId": paymentID}})
	})
	if err != nil {
		return RefundAttempt{}, err
	}
	return s.GetRefundAttempt(ctx, h.RefundID)
}

// handOver settles attempt id, waiting at the desk, as handed over by by (whose note is its
// reference). It reports false when by had handed it over already (nothing to do again).
func handOver(ctx context.Context, tx pgx.Tx, id, by, note string) (bool, error) {
	tag, err := tx.Exec(ctx, `UPDATE refunds SET status = 'succeeded', recorded_by = $2, reference = NULLIF($3, ''),
			last_error = NULL, updated_at = now()
		WHERE id = $1 AND status = 'pending' AND method <> 'provider'`, id, by, note)
	if err != nil || tag.RowsAffected() == 1 {
		return err == nil, err
	}
	a, err := getRefundAttempt(ctx, tx, id)
	switch {
	case err != nil:
		return false, err
	case a.Method == domain.MethodProvider:
		return false, fmt.Errorf("%w: it goes back through the payment provider", ErrNotAtTheDesk)
	case a.Status == "succeeded" && a.RecordedBy == by:
		return false, nil
	case a.Status == "succeeded":
		return false, fmt.Errorf("%w: %s handed it over already", ErrNotAtTheDesk, a.RecordedBy)
	}
	return false, fmt.Errorf("%w: it was given back another way (%s)", ErrNotAtTheDesk, a.LastError)
}

// closeDeskWait ends the wait at the desk of attempt a's step, when one of its attempts waits
// there, as resolved another way by a.RecordedBy: that attempt fails (its money is owed again,
// for the resolution to record as given back) and can no longer be handed over.
func closeDeskWait(ctx context.Context, tx pgx.Tx, a RefundAttempt) error {
	for {
		waiting, err := attemptOfStep(ctx, tx, a, "pending")
		if err != nil || waiting == "" {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE refunds SET status = 'failed', last_error = $2, updated_at = now()
			WHERE id = $1 AND status = 'pending' AND method <> 'provider'`, waiting,
			"not handed over at the desk: resolved by hand by "+a.RecordedBy)
		if err != nil || tag.RowsAffected() == 0 {
			return err // pending at the provider: the resolution is refused (ErrRefundInFlight)
		}
	}
}

// DueRefund is a refund waiting at a site's desk for someone to hand it over.
type DueRefund struct {
	ID        string    `json:"id"` // the refund attempt's id: what the hand-over names
	BookingID string    `json:"bookingId"`
	GuestName string    `json:"guestName,omitempty"`
	Amount    int64     `json:"amount"`
	Currency  string    `json:"currency"`
	Method    string    `json:"method"`
	Reason    string    `json:"reason"`
	Since     time.Time `json:"since"`
}

// RefundsDueAtTheDesk lists the refunds waiting at site's desk, the oldest first, with the name
// each booking is shown by: the desk's list of money to hand back when its guests come by.
func (s *Store) RefundsDueAtTheDesk(ctx context.Context, site Site) ([]DueRefund, error) {
	rows, err := s.pool.Query(ctx, `SELECT f.id, f.booking_id, `+guestName+`, f.amount, f.currency, f.method,
			f.reason, f.created_at
		FROM refunds f JOIN bookings b ON b.id = f.booking_id JOIN resources r ON r.id = b.resource_id
		WHERE f.status = 'pending' AND f.method <> 'provider' AND `+ofSite+`
		ORDER BY f.created_at, f.id`, site.HotelID, site.VenueID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (DueRefund, error) {
		var d DueRefund
		err := row.Scan(&d.ID, &d.BookingID, &d.GuestName, &d.Amount, &d.Currency, &d.Method, &d.Reason, &d.Since)
		return d, err
	})
}
