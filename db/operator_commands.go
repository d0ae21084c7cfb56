package db

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
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

// ClaimOperatorKey claims c's key on its own, for an operator's action whose money moves in a
// workflow's later steps, on behalf of claimer (the workflow's run and update): fresh when the key
// was free or claimer holds it already (its activity retried after the claim committed), not
// fresh when the same action holds it from another claim, ErrIdempotencyMismatch when another
// command does.
func (s *Store) ClaimOperatorKey(ctx context.Context, c MoneyCommand, claimer string) (fresh bool, err error) {
	err = s.inBookingTx(ctx, c.BookingID, func(tx pgx.Tx) error {
		if c.Key == "" {
			return fmt.Errorf("%w: a command that moves money has a key", domain.ErrInvalid)
		}
		err := tx.QueryRow(ctx, `INSERT INTO money_commands (booking_id, key, kind, body, actor, claimed_by)
			VALUES ($1, $2, $3, $4, NULLIF($5, ''), $6) ON CONFLICT (booking_id, key) DO NOTHING RETURNING true`,
			c.BookingID, c.Key, c.Kind, c.Body, c.Actor, claimer).Scan(&fresh)
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if err := sameCommand(ctx, tx, c); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT claimed_by IS NOT DISTINCT FROM $3 FROM money_commands WHERE booking_id = $1 AND key = $2`,
			c.BookingID, c.Key, claimer).Scan(&fresh)
	})
	return fresh, err
}
