package activities

import (
	"context"

	"github.com/bookflow/bookflow/domain"
)

// RefundPartsInput names a refund the database drew itself (db.CancelRefundRef,
// db.AmendmentRefundRef) of a booking.
type RefundPartsInput struct {
	BookingID string
	Ref       string
}

// RefundParts lists what the refund asked back of each of the booking's payments, as the ledger
// drew them (see db.Store.RefundParts): a workflow keeps no copy of what its booking keeps.
func (a *Bookings) RefundParts(ctx context.Context, in RefundPartsInput) ([]domain.Payment, error) {
	parts, err := a.Store.RefundParts(ctx, in.BookingID, in.Ref)
	return parts, classify(err)
}
