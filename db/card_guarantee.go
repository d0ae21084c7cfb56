package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// A pay-at-hotel booking's card in the database (issue 35; the rules: domain/card_guarantee.go):
// the card confirms the hold, and the fee a no-show or a late cancel asks of it is kept with the
// booking (guarantee_fee, migration 00049), its payment kept as the booking's own once it
// succeeded.

// ConfirmGuaranteed moves a pay-at-hotel booking from HOLD to CONFIRMED with the card its guest
// left, while its hold has not expired by the database's clock. Nothing is paid: the price is
// paid at the hotel. Asked again with the same card once confirmed, it answers the booking; a
// hold that expired, or any other booking, is a conflict.
func (s *Store) ConfirmGuaranteed(ctx context.Context, bookingID string, card domain.CardGuarantee) (domain.Booking, error) {
	booking, err := scanBooking(s.pool.QueryRow(ctx, `UPDATE bookings b SET status = 'CONFIRMED', card_guarantee = $2,
			updated_at = now(), balance_due_at = NULL
		FROM resources r, (SELECT set_config('bookflow.actor', $3, true)) AS actor
		WHERE b.id = $1 AND r.id = b.resource_id AND b.status = 'HOLD' AND b.expires_at > now()
			AND b.plan_terms->'payment'->>'kind' = $4
		RETURNING `+bookingColumns, bookingID, card, actorOf(ctx), domain.PayAtHotel))
	if !errors.Is(err, domain.ErrNotFound) {
		return booking, err
	}
	booking, err = s.GetBooking(ctx, bookingID)
	if err != nil {
		return booking, err
	}
	var kept *domain.CardGuarantee
	if err := s.pool.QueryRow(ctx, `SELECT card_guarantee FROM bookings WHERE id = $1`, bookingID).Scan(&kept); err != nil {
		return booking, err
	}
	switch {
	case kept != nil && kept.SetupIntentID == card.SetupIntentID && booking.Status != domain.StatusHold:
		return booking, nil // confirmed by this card before
	case !booking.PaysAtHotel():
		return booking, fmt.Errorf("%w: booking %s is not sold under a pay-at-hotel plan: a card does not confirm it",
			domain.ErrConflict, bookingID)
	case booking.Status == domain.StatusHold:
		return booking, fmt.Errorf("%w: the hold on booking %s expired at %s", domain.ErrConflict,
			bookingID, booking.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return booking, fmt.Errorf("%w: booking %s is %s and cannot be confirmed", domain.ErrConflict, bookingID, booking.Status)
}

// FeeToCharge is what the card of a booking is to be charged: its fee and its card.
type FeeToCharge struct {
	Fee  domain.GuaranteeFee
	Card domain.CardGuarantee
}

// StartFee records the fee of kind a guaranteed booking's card is to be charged, under its key
// (domain.FeeKey), and answers it with the card: what the booking's end keeps of its price (keep)
// beyond what its guest paid at the hotel and does not get back for this end (givenBack), read
// in the same transaction (domain.GuaranteeFeeAmount). Nothing to charge answers no fee (its
// Status empty) and records nothing. The first fee recorded stays: a retry, or a fee of another
// kind asked later, answers it as it stands (its status says whether the card still has to be
// asked). A booking without a card has nothing to charge: ErrConflict.
func (s *Store) StartFee(ctx context.Context, bookingID, kind string, keep, givenBack int64, currency string) (FeeToCharge, error) {
	var out FeeToCharge
	err := s.inBookingTx(ctx, bookingID, func(tx pgx.Tx) error {
		var card *domain.CardGuarantee
		var stored *domain.GuaranteeFee
		var paidHere int64
		err := tx.QueryRow(ctx, `SELECT b.card_guarantee, b.guarantee_fee, `+received+` - `+reversed+`
			FROM bookings b WHERE b.id = $1 FOR UPDATE`, bookingID).Scan(&card, &stored, &paidHere)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return fmt.Errorf("%w: no such booking", domain.ErrNotFound)
		case err != nil:
			return err
		case card == nil:
			return fmt.Errorf("%w: booking %s has no card on file to charge", domain.ErrConflict, bookingID)
		case stored != nil:
			out = FeeToCharge{Fee: *stored, Card: *card}
			return nil
		case keep <= 0 || givenBack < 0 || domain.ValidateCurrency(currency) != nil:
			return fmt.Errorf("%w: a fee keeps a positive amount, in a currency", domain.ErrInvalid)
		}
		amount := domain.GuaranteeFeeAmount(keep, paidHere, givenBack)
		if amount == 0 {
			return nil
		}
		fee := domain.GuaranteeFee{Kind: kind, Key: domain.FeeKey(bookingID, kind), Amount: amount, Currency: currency,
			Status: domain.FeeCharging}
		out = FeeToCharge{Fee: fee, Card: *card}
		_, err = tx.Exec(ctx, `UPDATE bookings SET guarantee_fee = $2, updated_at = now() WHERE id = $1`, bookingID, fee)
		return err
	})
	return out, err
}

// FeePaid records that the card paid the booking's fee with pay: the payment is recorded as
// succeeded (its webhook may come before or after) and the booking keeps it, its paid growing by
// it, in one transaction. Asked again, or for the payment the fee already has, it changes
// nothing. A payment that is not the fee's (another key, amount or currency), or that was given
// back in part already, is a conflict: it is not kept.
func (s *Store) FeePaid(ctx context.Context, bookingID, key string, pay domain.Payment) (domain.GuaranteeFee, error) {
	return s.settleFee(ctx, bookingID, key, func(tx pgx.Tx, fee *domain.GuaranteeFee) error {
		switch {
		case fee.Status == domain.FeePaid && fee.PaymentID == pay.ID:
			return nil
		case fee.Status == domain.FeePaid || pay.Amount != fee.Amount || pay.Currency != fee.Currency:
			return fmt.Errorf("%w: payment %s of %d %s does not pay the fee %s of %d %s (%s)", domain.ErrConflict,
				pay.ID, pay.Amount, pay.Currency, key, fee.Amount, fee.Currency, fee.Status)
		}
		if err := paymentWhole(ctx, tx, pay.ID); err != nil {
			return err // given back (a release that took it for a second payment)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO payments (payment_id, booking_id, amount, currency, status, succeeded_at)
			VALUES ($1, $2, $3, $4, 'succeeded', now())
			ON CONFLICT (payment_id) DO UPDATE SET status = 'succeeded', succeeded_at = COALESCE(payments.succeeded_at, now())
			WHERE payments.status <> 'succeeded'`, pay.ID, bookingID, pay.Amount, pay.Currency); err != nil {
			return err
		}
		fee.Status, fee.PaymentID, fee.PendingPaymentID, fee.Reason = domain.FeePaid, pay.ID, "", ""
		_, err := tx.Exec(ctx, `UPDATE bookings SET guarantee_fee = $2, paid = paid + $3, updated_at = now() WHERE id = $1`,
			bookingID, *fee, pay.Amount)
		return err
	})
}

// FeeProcessing records the payment the provider is still processing for the fee; its webhook
// ends it. A fee that ended changes nothing.
func (s *Store) FeeProcessing(ctx context.Context, bookingID, key, paymentID string) (domain.GuaranteeFee, error) {
	return s.settleFee(ctx, bookingID, key, func(tx pgx.Tx, fee *domain.GuaranteeFee) error {
		if fee.Status != domain.FeeCharging {
			return nil
		}
		fee.Status, fee.PendingPaymentID = domain.FeeProcessing, paymentID
		_, err := tx.Exec(ctx, `UPDATE bookings SET guarantee_fee = $2, updated_at = now() WHERE id = $1`, bookingID, *fee)
		return err
	})
}

// FeeDeclined records that the card refused the fee, and why: staff take it up with the guest.
// A fee paid meanwhile stays paid.
func (s *Store) FeeDeclined(ctx context.Context, bookingID, key, reason string) (domain.GuaranteeFee, error) {
	return s.settleFee(ctx, bookingID, key, func(tx pgx.Tx, fee *domain.GuaranteeFee) error {
		if fee.Status == domain.FeePaid || fee.Status == domain.FeeDeclined {
			return nil
		}
		fee.Status, fee.Reason = domain.FeeDeclined, reason
		_, err := tx.Exec(ctx, `UPDATE bookings SET guarantee_fee = $2, updated_at = now() WHERE id = $1`, bookingID, *fee)
		return err
	})
}

// settleFee locks the booking, reads its fee under key and lets apply move it.
func (s *Store) settleFee(ctx context.Context, bookingID, key string, apply func(pgx.Tx, *domain.GuaranteeFee) error) (domain.GuaranteeFee, error) {
	var fee *domain.GuaranteeFee
	err := s.inBookingTx(ctx, bookingID, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `SELECT guarantee_fee FROM bookings WHERE id = $1 FOR UPDATE`, bookingID).Scan(&fee)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return fmt.Errorf("%w: no such booking", domain.ErrNotFound)
		case err != nil:
			return err
		case fee == nil || fee.Key != key:
			return fmt.Errorf("%w: booking %s asked no fee %s of its card", domain.ErrConflict, bookingID, key)
		}
		return apply(tx, fee)
	})
	if fee == nil {
		return domain.GuaranteeFee{}, err
	}
	return *fee, err
}

// FeesNotCharged finds the fees guaranteed bookings' cards did not pay: declined in the last day
// (the workflow flags one declined while it runs; this also finds one declined after it closed),
// or still charging or processing more than grace after the booking last changed (an answer or a
// webhook lost). Reported for staff, never repaired here: a charge moves money.
func (s *Store) FeesNotCharged(ctx context.Context, grace time.Duration) ([]domain.Finding, error) {
	found, err := s.bookingsWhere(ctx, `b.guarantee_fee IS NOT NULL AND (
		b.guarantee_fee->>'status' = 'declined' AND b.updated_at > now() - interval '1 day'
		OR b.guarantee_fee->>'status' IN ('charging', 'processing') AND b.updated_at < now() - $1 * interval '1 microsecond')`,
		grace.Microseconds())
	out := make([]domain.Finding, 0, len(found))
	for _, b := range found {
		f := b.Fee
		detail := fmt.Sprintf("its card declined the %s fee of %d %s: %s", f.Kind, f.Amount, f.Currency, f.Reason)
		if f.Status != domain.FeeDeclined {
			detail = fmt.Sprintf("its %s fee of %d %s is still %s", f.Kind, f.Amount, f.Currency, f.Status)
		}
		out = append(out, domain.Finding{Check: domain.CheckFeeNotCharged, BookingID: b.ID,
			PaymentID: f.PendingPaymentID, Detail: detail})
	}
	return out, err
}
