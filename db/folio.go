package db

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// The folio's extras (issue 39, migration 00056): what the desk charges a booking besides its
// price. A charge is a promise in the ledger (charge_added, voided by charge_voided, posted by
// the folio_charges trigger), so the booking's due is its price and its extras less what was
// paid, and a desk payment pays them as it pays any balance.

// FolioCharge is an extra charged to a booking.
type FolioCharge struct {
	ID        int64     `json:"id"`
	BookingID string    `json:"bookingId"`
	Key       string    `json:"key"`
	AddedBy   string    `json:"addedBy"`
	AddedAt   time.Time `json:"addedAt"`
	Amount    int64     `json:"amount"`
	domain.Charge
	VoidedAt   *time.Time `json:"voidedAt,omitempty"`
	VoidedBy   string     `json:"voidedBy,omitempty"`
	VoidReason string     `json:"voidReason,omitempty"`
}

// Folio is a booking's bill as GET /staff/bookings/{id}/folio shows it (api/folio.go) and the
// console prints it: its price (nights or lines), its charges (live and voided), its payments and
// refund attempts, its money summed, and its guest's name.
type Folio struct {
	BookingID string          `json:"bookingId"`
	Status    domain.Status   `json:"status"`
	GuestName string          `json:"guestName"`
	Price     domain.Price    `json:"price"`
	Charges   []FolioCharge   `json:"charges"`
	Payments  []PaymentRecord `json:"payments"`
	Refunds   []RefundAttempt `json:"refunds"`
	Money     MoneySummary    `json:"money"`
}

// extrasCharged is what booking b's live extras charge it, by its ledger.
const extrasCharged = `ledger_booking_extras(b.id)`

const folioChargeColumns = `id, booking_id, key, added_by, added_at, amount, kind, description, quantity, unit_amount,
	currency, voided_at, COALESCE(voided_by, ''), COALESCE(void_reason, '')`

func scanFolioCharge(row pgx.Row) (FolioCharge, error) {
	var c FolioCharge
	err := row.Scan(&c.ID, &c.BookingID, &c.Key, &c.AddedBy, &c.AddedAt, &c.Amount, &c.Kind, &c.Description, &c.Quantity,
		&c.UnitAmount, &c.Currency, &c.VoidedAt, &c.VoidedBy, &c.VoidReason)
	return c, err
}

// FolioChargeCommand is charge c of booking bookingID under key as a money command.
func FolioChargeCommand(bookingID, key, actor string, c domain.Charge) MoneyCommand {
	return MoneyCommand{BookingID: bookingID, Key: key, Kind: CommandFolioCharge, Actor: actor,
		Body: map[string]any{"kind": c.Kind, "quantity": c.Quantity, "unitAmount": c.UnitAmount, "currency": c.Currency}}
}

// AddCharge charges booking bookingID an extra, under the desk's key: the same charge again
// under it is the charge made the first time, another is ErrIdempotencyMismatch. Only a booking
// the guest has (CONFIRMED, or checked in: COMPLETED) that the desk takes payments for is
// charged, in its price's currency. again says it was charged before under the key.
func (s *Store) AddCharge(ctx context.Context, bookingID, key, actor string, c domain.Charge) (charge FolioCharge, again bool, err error) {
	c.Description = strings.TrimSpace(c.Description)
	if err := c.Validate(); err != nil {
		return FolioCharge{}, false, err
	}
	err = s.inBookingTx(ctx, bookingID, func(tx pgx.Tx) error {
		b, _, err := lockBookingMoney(ctx, tx, bookingID)
		if err != nil {
			return err
		}
		fresh, err := claimMoneyCommand(ctx, tx, FolioChargeCommand(bookingID, key, actor, c))
		if err != nil {
			return err
		}
		if again = !fresh; again { // charged before under this key
			charge, err = scanFolioCharge(tx.QueryRow(ctx, `SELECT `+folioChargeColumns+` FROM folio_charges
				WHERE booking_id = $1 AND key = $2`, bookingID, key))
			return err
		}
		if err := chargeable(b, c.Currency); err != nil {
			return err
		}
		charge, err = scanFolioCharge(tx.QueryRow(ctx, `INSERT INTO folio_charges (booking_id, key, kind, description,
				quantity, unit_amount, amount, currency, added_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
			RETURNING `+folioChargeColumns, bookingID, key, c.Kind, c.Description, c.Quantity, c.UnitAmount, c.Amount(),
			c.Currency, actor))
		return err
	})
	return charge, again, err
}

// chargeable checks that booking b, locked, takes extras in currency: the guest has it, and its
// desk takes payments for it (not a channel's sale on account, not a supplier's stock).
func chargeable(b domain.Booking, currency string) error {
	switch {
	case b.Status != domain.StatusConfirmed && b.Status != domain.StatusCompleted:
		return fmt.Errorf("%w: booking %s is %s: extras are charged to a confirmed or checked-in booking", domain.ErrConflict,
			b.ID, b.Status)
	case b.ChannelID != "":
		return fmt.Errorf("%w: booking %s was sold on channel %s's account: the desk takes no payment for it", domain.ErrConflict,
			b.ID, b.ChannelID)
	case b.SupplierID != "":
		return fmt.Errorf("%w: booking %s was sold from supplier %s's stock: %s", domain.ErrConflict, b.ID, b.SupplierID,
			domain.SupplierBookingNoDeskPayment)
	case currency != b.Price.Currency:
		return fmt.Errorf("%w: booking %s is priced in %s, not %s", domain.ErrInvalid, b.ID, b.Price.Currency, currency)
	}
	return nil
}

// VoidCharge voids charge chargeID of booking bookingID, with a reason: its amount is no longer
// due. Voiding a voided charge changes nothing (again says so). A charge the guest has paid for (what the
// booking keeps would then be more than its price and extras) is refused: refund it first, so
// no money is kept without a charge to keep it for.
func (s *Store) VoidCharge(ctx context.Context, bookingID string, chargeID int64, reason, actor string) (
	charge FolioCharge, again bool, err error) {
	reason = strings.TrimSpace(reason)
	switch {
	case reason == "":
		return FolioCharge{}, false, fmt.Errorf("%w: a void has a reason", domain.ErrInvalid)
	case domain.Longer(reason, 500):
		return FolioCharge{}, false, fmt.Errorf("%w: reason is at most 500 characters", domain.ErrInvalid)
	}
	err = s.inBookingTx(ctx, bookingID, func(tx pgx.Tx) error {
		b, m, err := lockBookingMoney(ctx, tx, bookingID)
		if err != nil {
			return err
		}
		charge, err = scanFolioCharge(tx.QueryRow(ctx, `SELECT `+folioChargeColumns+` FROM folio_charges
			WHERE booking_id = $1 AND id = $2`, bookingID, chargeID))
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w: booking %s has no charge %d", domain.ErrNotFound, bookingID, chargeID)
		}
		if again = charge.VoidedAt != nil; err != nil || again {
			return err
		}
		// What it keeps (a goodwill refund of the charge came off it) against what it would owe.
		if owes := b.Price.Total + m.extras - charge.Amount; b.Status.HoldsInventory() && b.Paid > owes {
			return fmt.Errorf("%w: booking %s keeps %d %s of what was paid; without charge %d it owes %d: the charge was paid, refund %d first",
				domain.ErrConflict, b.ID, b.Paid, b.Price.Currency, charge.ID, owes, b.Paid-owes)
		}
		charge, err = scanFolioCharge(tx.QueryRow(ctx, `UPDATE folio_charges SET voided_at = now(), voided_by = $3,
				void_reason = $4 WHERE booking_id = $1 AND id = $2 RETURNING `+folioChargeColumns, bookingID, chargeID, actor, reason))
		return err
	})
	return charge, again, err
}

// FolioCharges returns booking id's charges, live and voided, in the order they were made.
func (s *Store) FolioCharges(ctx context.Context, id string) ([]FolioCharge, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+folioChargeColumns+` FROM folio_charges WHERE booking_id = $1 ORDER BY id`, id)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (FolioCharge, error) { return scanFolioCharge(row) })
}
