package activities

import (
	"context"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// One key space for the commands that move a booking's money (see db.MoneyCommand): the
// booking's workflow asks whether a staff request's key is spent before it judges the booking,
// and a cancel with the refund staff decide claims its key with the refund.

// MoneyCommandSeen answers whether command c's key is spent (see db.Store.MoneyCommandSeen):
// true for the same command again; a key another command holds is a non-retryable error of type
// ErrTypeIdempotencyMismatch, the staff member's answer (422).
func (a *Bookings) MoneyCommandSeen(ctx context.Context, c db.MoneyCommand) (bool, error) {
	seen, err := a.Store.MoneyCommandSeen(ctx, c)
	return seen, classifyAmend(err)
}

// CancelRefundInput cancels a booking with the refund staff decide, under the command's key.
type CancelRefundInput struct {
	Command db.MoneyCommand // db.CommandCancelRefund
	Amount  int64           // given back, never above what the booking keeps
}

// StartCancelRefund is StartRefund for a cancel with the refund staff decide, claiming its key
// in the same transaction (see db.Store.StartCancelRefund): the same cancel again returns the
// booking as it is; another command under the key is ErrTypeIdempotencyMismatch.
func (a *Bookings) StartCancelRefund(ctx context.Context, in CancelRefundInput) (domain.Booking, error) {
	b, err := a.Store.StartCancelRefund(db.WithActor(ctx, in.Command.Actor), in.Command,
		func(domain.Booking) (int64, error) { return in.Amount, nil })
	return b, classifyAmend(err)
}

// OperatorKeyClaim is an operator action's key claimed by a workflow's update (Claimer: its run
// and update id).
type OperatorKeyClaim struct {
	Command db.MoneyCommand
	Claimer string
}

// ClaimOperatorKey claims an operator action's key (see db.Store.ClaimOperatorKey): true when it
// was free or this claim holds it; false for the same action claimed before; another command under
// the key is ErrTypeIdempotencyMismatch.
func (a *Bookings) ClaimOperatorKey(ctx context.Context, in OperatorKeyClaim) (bool, error) {
	fresh, err := a.Store.ClaimOperatorKey(ctx, in.Command, in.Claimer)
	return fresh, classifyAmend(err)
}
