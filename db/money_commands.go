package db

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// One key space for the commands that move a booking's money (issue 34): a desk payment, a
// refund that keeps the units (goodwill, a reversal, an early departure's, a no-show's), a
// cancel with the refund staff decide, an amendment. Each claims its idempotency key in
// money_commands in the transaction that moves its money, so a command and its key are written
// together or not at all. A key is the booking's once: the same command again is answered by its first outcome and
// moves nothing, and any other command under it (another amount, another kind) is refused with
// domain.ErrIdempotencyMismatch, whatever route either came by.

// Kinds of money command besides a staff refund's, whose kind is its own (RefundGoodwill,
// RefundReversal, RefundEarlyDeparture, RefundNoShow).
const (
	CommandDeskPayment  = "desk_payment"
	CommandCancelRefund = "cancel_refund" // a cancel with the refund staff decide (releaseUnits)
	CommandAmendment    = "amendment"
	CommandFolioCharge  = "folio_charge" // an extra the desk charged (db/folio.go)
)

// MoneyCommand is a command that moves a booking's money, under its key.
type MoneyCommand struct {
	BookingID string
	Key       string
	Kind      string
	// Body is what the command moves, compared as JSON: its amount and currency, a desk
	// payment's method, the payment a reversal gives back, an amendment's fingerprint. A reason
	// or a note is not compared: a retry may word it again.
	Body map[string]any
	// Actor is the staff member who asked; empty for an amendment, whose actor (a customer, say)
	// is on its own row, where an erasure finds it.
	Actor string `json:",omitempty"`
}

// DeskPaymentCommand is desk payment p as a money command.
func DeskPaymentCommand(p DeskPayment) MoneyCommand {
	return MoneyCommand{BookingID: p.BookingID, Key: p.Key, Kind: CommandDeskPayment, Actor: p.TakenBy,
		Body: map[string]any{"amount": p.Amount, "currency": p.Currency, "method": p.Method}}
}

// StaffRefundCommand is staff refund r (its key is its id's) as a money command.
func StaffRefundCommand(r StaffRefund) MoneyCommand {
	c := MoneyCommand{BookingID: r.BookingID, Key: strings.TrimPrefix(r.ID, r.BookingID+"/"), Kind: r.Kind, Actor: r.Actor,
		Body: map[string]any{"amount": r.Amount, "currency": r.Currency}}
	if r.Kind == RefundReversal && len(r.Parts) == 1 {
		c.Body["reverses"] = r.Parts[0].ID
	}
	if r.Method != "" { // left out as before: a refund as it was paid is the command it always was
		c.Body["method"] = r.Method
	}
	return c
}

// CancelRefundCommand is a cancel of booking bookingID with amount given back, under key.
func CancelRefundCommand(bookingID, key string, amount int64, currency, actor string) MoneyCommand {
	return MoneyCommand{BookingID: bookingID, Key: key, Kind: CommandCancelRefund, Actor: actor,
		Body: map[string]any{"amount": amount, "currency": currency}}
}

// amendmentCommand is amendment p as a money command.
func amendmentCommand(p AmendParams) MoneyCommand {
	return MoneyCommand{BookingID: p.BookingID, Key: p.IdempotencyKey, Kind: CommandAmendment,
		Body: map[string]any{"fingerprint": p.Change.Fingerprint()}}
}

// claimMoneyCommand claims c's key in tx, the transaction that moves its money: fresh when the
// key was free (it is written with the command, or rolled back with it), not fresh when the same
// command holds it (its first outcome stands: nothing moves again), ErrIdempotencyMismatch when
// another command does.
func claimMoneyCommand(ctx context.Context, tx pgx.Tx, c MoneyCommand) (fresh bool, err error) {
	if c.Key == "" {
		return false, fmt.Errorf("%w: a command that moves money has a key", domain.ErrInvalid)
	}
	err = tx.QueryRow(ctx, `INSERT INTO money_commands (booking_id, key, kind, body, actor) VALUES ($1, $2, $3, $4, NULLIF($5, ''))
		ON CONFLICT (booking_id, key) DO NOTHING RETURNING true`, c.BookingID, c.Key, c.Kind, c.Body, c.Actor).Scan(&fresh)
	if !errors.Is(err, pgx.ErrNoRows) {
		return fresh, err
	}
	return false, sameCommand(ctx, tx, c)
}

// MoneyCommandSeen answers whether c's key is spent, before the booking's state is judged: true
// when the same command holds it (a retry, answered by its first outcome), false when it is free,
// ErrIdempotencyMismatch when another command holds it. It claims nothing: the command's own
// transaction does.
func (s *Store) MoneyCommandSeen(ctx context.Context, c MoneyCommand) (bool, error) {
	err := sameCommand(ctx, s.pool, c)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// sameCommand is nil when c's key holds c (pgx.ErrNoRows when it holds nothing), and
// ErrIdempotencyMismatch when it holds another command.
func sameCommand(ctx context.Context, q querier, c MoneyCommand) error {
	var kind string
	var same bool
	err := q.QueryRow(ctx, `SELECT kind, kind = $3 AND body = $4::jsonb FROM money_commands WHERE booking_id = $1 AND key = $2`,
		c.BookingID, c.Key, c.Kind, c.Body).Scan(&kind, &same)
	if err != nil || same {
		return err
	}
	if kind != c.Kind {
		return fmt.Errorf("%w: key %s of booking %s was used for a %s, not a %s", domain.ErrIdempotencyMismatch, c.Key,
			c.BookingID, strings.ReplaceAll(kind, "_", " "), strings.ReplaceAll(c.Kind, "_", " "))
	}
	return fmt.Errorf("%w: key %s of booking %s was used for another %s", domain.ErrIdempotencyMismatch, c.Key, c.BookingID,
		strings.ReplaceAll(kind, "_", " "))
}

// StartCancelRefund is StartRefund for a cancel with the refund staff decide, under c's key
// (CommandCancelRefund), claimed in the same transaction: the same cancel again (an activity's
// retry, a request retried) returns the booking as it is and moves nothing; another command under
// the key is ErrIdempotencyMismatch, and a booking already refunding for another cancel is
// ErrConflict, so a key is never spent on money it did not move.
func (s *Store) StartCancelRefund(ctx context.Context, c MoneyCommand, refundDue func(b domain.Booking) (int64, error)) (
	domain.Booking, error) {
	var booking domain.Booking
	err := s.inBookingTx(ctx, c.BookingID, func(tx pgx.Tx) error {
		b, err := lockBooking(ctx, tx, c.BookingID)
		if err != nil {
			return err
		}
		booking = b
		if fresh, err := claimMoneyCommand(ctx, tx, c); err != nil || !fresh {
			return err
		}
		if b.Status == domain.StatusRefunding || b.Status == domain.StatusRefunded {
			return fmt.Errorf("%w: booking %s is %s already: this cancel moves nothing", domain.ErrConflict, b.ID, b.Status)
		}
		booking, err = startRefund(ctx, tx, c.BookingID, nil, refundDue)
		return err
	})
	if err != nil {
		return domain.Booking{}, err
	}
	return booking, nil
}
