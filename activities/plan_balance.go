package activities

import (
	"context"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// PayPlanBalanceInput is the online payment of the rest of a deposit booking's price.
type PayPlanBalanceInput struct {
	BookingID string
	Payment   domain.Payment
}

// PayPlanBalance keeps the payment as the rest of a booking confirmed by its deposit
// (db.Store.PayPlanBalance): run again after its commit, it answers the same booking.
func (a *Bookings) PayPlanBalance(ctx context.Context, in PayPlanBalanceInput) (domain.Booking, error) {
	b, err := a.Store.PayPlanBalance(db.WithActor(ctx, db.ActorBalancePayment), in.BookingID, in.Payment)
	return b, classify(err)
}
