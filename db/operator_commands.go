package db

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// An operator's action on a stuck refund moves money as any staff command does (a retry sends it
// again, a resolution records it given back by hand), so under an idempotency key it takes the
// booking's key space too: the same action again is answered as the first, and the key of any
// other command is refused.

// Kinds of an operator's money command.
const (
	CommandRefundRetry   = "refund_retry"
	CommandRefundResolve = "refund_resolve"
)

// OperatorCommand is an operator's retry (resolve false) or resolution of booking bookingID's
// stuck refunds, under key. The reason is not compared: a retry may word it again.
func OperatorCommand(bookingID, key string, resolve bool, actor string) MoneyCommand {
	kind := CommandRefundRetry
	if resolve {
		kind = CommandRefundResolve
	}
	return MoneyCommand{BookingID: bookingID, Key: key, Kind: kind, Actor: actor, Body: map[string]any{"action": kind}}
}

// ClaimMoneyCommand claims c's key on its own, for a command whose money moves in a workflow's
// later steps (an operator's action): fresh when the key was free, not fresh when c holds it
// already, ErrIdempotencyMismatch when another command does.
func (s *Store) ClaimMoneyCommand(ctx context.Context, c MoneyCommand) (fresh bool, err error) {
	err = s.inBookingTx(ctx, c.BookingID, func(tx pgx.Tx) error {
		fresh, err = claimMoneyCommand(ctx, tx, c)
		return err
	})
	return fresh, err
}
