package activities

import (
	"context"
	"strings"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// Money staff steer on a booking: desk payments, prices set by hand, refunds that keep the
// booking's units. Each is one database step the booking's workflow runs from its main loop; a
// refusal (the booking's state, the amount, the key reused) is a non-retryable application
// error, the answer to the staff member's update.

// TakeDeskPayment records money the desk took (see db.Store.TakeDeskPayment); a hold its
// payments now cover is CONFIRMED.
func (a *Bookings) TakeDeskPayment(ctx context.Context, p db.DeskPayment) (domain.Booking, error) {
	b, err := a.Store.TakeDeskPayment(db.WithActor(ctx, p.TakenBy), p)
	return b, classifyAmend(err)
}

// ChangePrice sets a held, unpaid booking's price by hand (see db.Store.ChangePrice).
func (a *Bookings) ChangePrice(ctx context.Context, c db.PriceChange) (domain.Booking, error) {
	b, err := a.Store.ChangePrice(db.WithActor(ctx, c.Actor), c)
	return b, classifyAmend(err)
}

// StaffRefundOutcome is a refund that keeps the booking's units, as recorded (a retry under its
// key answers the first one's parts), and the booking it leaves.
type StaffRefundOutcome struct {
	Refund  db.StaffRefund
	Booking domain.Booking
	// Asked says, of each part, whether an attempt to give it back was ever recorded.
	Asked []bool `json:",omitempty"`
}

// StartStaffRefund records a refund that keeps the booking's units and lowers what it keeps
// (see db.Store.StartStaffRefund); the workflow then gives each part back through the saga.
func (a *Bookings) StartStaffRefund(ctx context.Context, r db.StaffRefund) (StaffRefundOutcome, error) {
	stored, b, err := a.Store.StartStaffRefund(db.WithActor(ctx, r.Actor), r)
	if err != nil {
		return StaffRefundOutcome{}, classifyAmend(err)
	}
	out := StaffRefundOutcome{Refund: stored, Booking: b}
	key := strings.TrimPrefix(stored.ID, stored.BookingID+"/")
	for i, part := range stored.Parts {
		last, _, err := a.Store.LastRefundAttempt(ctx, stored.BookingID, db.StaffRefundStep(key, i, part.ID))
		if err != nil {
			return out, err
		}
		out.Asked = append(out.Asked, last > 0)
	}
	return out, nil
}
