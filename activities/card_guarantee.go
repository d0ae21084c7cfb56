package activities

import (
	"context"
	"errors"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
)

// A pay-at-hotel booking's card (issue 35; domain/card_guarantee.go): the card confirms the
// hold, and a no-show's or a late cancel's fee is charged to it off session.

// ConfirmGuaranteedInput confirms a pay-at-hotel hold with the card its guest saved.
type ConfirmGuaranteedInput struct {
	BookingID string
	Card      domain.CardGuarantee
}

// ConfirmGuaranteed confirms a pay-at-hotel hold by its card. A hold that expired by the
// database's clock, or a booking no longer on hold, fails with type Conflict.
func (a *Bookings) ConfirmGuaranteed(ctx context.Context, in ConfirmGuaranteedInput) (domain.Booking, error) {
	b, err := a.Store.ConfirmGuaranteed(db.WithActor(ctx, db.ActorCardGuarantee), in.BookingID, in.Card)
	return b, classify(err)
}

// Fees charges the fees of guaranteed bookings to their cards.
type Fees struct {
	Store *db.Store
	// Guarantees charges the cards; nil (a provider that keeps no cards) declines every fee.
	Guarantees payments.Guarantees
}

// ChargeFeeInput asks for the fee of kind of a guaranteed booking whose end keeps Keep of its
// price and gives GivenBack of what was paid at the hotel back (db.Store.StartFee): fixed by the
// workflow before the step, so that a retry asks the same.
type ChargeFeeInput struct {
	BookingID string
	Kind      string
	Keep      int64
	GivenBack int64 `json:",omitempty"`
	Currency  string
}

// ChargeFee records the booking's fee and charges it to its card, off session, under the fee's
// key: a retry after any failure asks the provider again under the same key and is answered the
// same charge. It answers the booking with its fee paid, processing (the payment's webhook ends
// it) or declined (with the card's reason), or without a fee when nothing is left to charge; a
// fee recorded already is answered as it stands, the card not asked again. A provider that did
// not answer is retried.
func (a *Fees) ChargeFee(ctx context.Context, in ChargeFeeInput) (domain.Booking, error) {
	due, err := a.Store.StartFee(ctx, in.BookingID, in.Kind, in.Keep, in.GivenBack, in.Currency)
	if err != nil {
		return domain.Booking{}, classify(err)
	}
	if fee := due.Fee; fee.Status == domain.FeeCharging {
		if err := a.charge(ctx, in.BookingID, due); err != nil {
			return domain.Booking{}, err
		}
	}
	b, err := a.Store.GetBooking(ctx, in.BookingID)
	return b, classify(err)
}

// charge asks the provider for the fee due and records its answer.
func (a *Fees) charge(ctx context.Context, bookingID string, due db.FeeToCharge) error {
	fee := due.Fee
	if a.Guarantees == nil {
		_, err := a.Store.FeeDeclined(ctx, bookingID, fee.Key, "no payment provider charges cards here")
		return classify(err)
	}
	charge, err := a.Guarantees.ChargeFee(ctx, payments.FeeRequest{BookingID: bookingID, Guarantee: due.Card,
		Amount: fee.Amount, Currency: fee.Currency, Kind: fee.Kind, IdempotencyKey: fee.Key})
	switch {
	case errors.Is(err, payments.ErrFeeDeclined):
		_, err = a.Store.FeeDeclined(ctx, bookingID, fee.Key, err.Error())
	case err != nil:
		return err // no answer: asked again under the same key
	case charge.Status == payments.FeeSucceeded:
		_, err = a.Store.FeePaid(ctx, bookingID, fee.Key, domain.Payment{ID: charge.PaymentID, Amount: fee.Amount,
			Currency: fee.Currency})
	default:
		_, err = a.Store.FeeProcessing(ctx, bookingID, fee.Key, charge.PaymentID)
	}
	return classify(err)
}

// FeeOutcomeInput is the provider's word on a fee's payment, from its webhook: Payment paid it,
// or (Payment nil) it failed for Reason.
type FeeOutcomeInput struct {
	BookingID string
	Key       string
	Payment   *domain.Payment
	Reason    string
}

// FeeOutcome records the provider's word on a fee's payment and answers the booking. A payment
// that is not the fee's is a Conflict: it is not kept.
func (a *Fees) FeeOutcome(ctx context.Context, in FeeOutcomeInput) (domain.Booking, error) {
	var err error
	if in.Payment == nil {
		_, err = a.Store.FeeDeclined(ctx, in.BookingID, in.Key, in.Reason)
	} else {
		_, err = a.Store.FeePaid(ctx, in.BookingID, in.Key, *in.Payment)
	}
	if err != nil {
		return domain.Booking{}, classify(err)
	}
	b, err := a.Store.GetBooking(ctx, in.BookingID)
	return b, classify(err)
}
