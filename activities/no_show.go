package activities

import (
	"context"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// NoShowOutput is the booking a no-show left and what its plan's no-show terms give back of what
// it keeps (see db.Store.MarkNoShow).
type NoShowOutput struct {
	Booking domain.Booking
	Refund  int64 `json:",omitempty"`
}

// MarkNoShow marks a confirmed booking nobody checked in NO_SHOW, gives its units back and says
// what its no-show terms give back. A new activity beside NoShow, which the workflows recorded
// before it still call.
func (a *Bookings) MarkNoShow(ctx context.Context, bookingID string) (NoShowOutput, error) {
	out, err := a.Store.MarkNoShow(db.WithActor(ctx, db.ActorNoShow), bookingID)
	return NoShowOutput{Booking: out.Booking, Refund: out.Refund}, classify(err)
}
