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
	// SlotClosed: one of the booking's units was closed, so it is not a no-show (nothing changed).
	SlotClosed bool `json:",omitempty"`
}

// MarkNoShow marks a confirmed booking nobody checked in NO_SHOW, gives its units back and says
// what its no-show terms give back. A new activity beside NoShow, which the workflows recorded
// before it still call.
func (a *Bookings) MarkNoShow(ctx context.Context, bookingID string) (NoShowOutput, error) {
	out, err := a.Store.MarkNoShow(db.WithActor(ctx, db.ActorNoShow), bookingID)
	return NoShowOutput{Booking: out.Booking, Refund: out.Refund}, classify(err)
}

// MarkNoShowUnlessClosed is MarkNoShow, except for a venue booking one of whose units was closed:
// that one is answered SlotClosed, unchanged. A new activity beside MarkNoShow, which the
// workflows recorded before it still call.
func (a *Bookings) MarkNoShowUnlessClosed(ctx context.Context, bookingID string) (NoShowOutput, error) {
	out, err := a.Store.MarkNoShowUnlessClosed(db.WithActor(ctx, db.ActorNoShow), bookingID)
	return NoShowOutput{Booking: out.Booking, Refund: out.Refund, SlotClosed: out.SlotClosed}, classify(err)
}
