package workflows

import (
	"errors"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
)

// A pay-at-hotel booking in the workflow (issue 35; the rules: domain/card_guarantee.go): the
// card its guest saves confirms the hold, and a no-show or a late cancel charges the fee its
// terms keep to that card, off session, as a step after the booking moved.

// versionCardGuarantee marks the workflows that take a card guarantee and charge fees. Only a
// pay-at-hotel booking, or an event only such a booking causes, asks (none existed before it).
// Version 1 charged a fee inside the step that asked it, so a cancel was answered only once the
// card had; from version 2 the fee is charged after the request is answered (flushFee).
const versionCardGuarantee = "card-guarantee"

// feeAfterAnswer is versionCardGuarantee's version that charges fees after the answer.
const feeAfterAnswer workflow.Version = 2

// feeByDatabase: the database computes the fee (StartFee); before it the workflow skipped a fee
// its own arithmetic found nothing.
const feeByDatabase workflow.Version = 3

// feeDue is a fee a step asked for, charged once the request is answered.
type feeDue struct {
	kind            string
	keep, givenBack int64
}

// IssueFeeDeclined: the card refused a fee (or the provider's answer never came): staff take it
// up with the guest.
const IssueFeeDeclined = "FEE_DECLINED"

// feeChargeFor bounds the retries of a fee whose charge got no answer: well inside the day the
// provider keeps an idempotency key, so a retry is never a second charge.
const feeChargeFor = 12 * time.Hour

var fees *activities.Fees

func cardGuarantees(ctx workflow.Context) bool { return cardGuaranteeVersion(ctx) >= 1 }

func cardGuaranteeVersion(ctx workflow.Context) workflow.Version {
	return workflow.GetVersion(ctx, versionCardGuarantee, workflow.DefaultVersion, feeByDatabase)
}

// onGuarantee confirms a pay-at-hotel hold by the card its guest saved. A card saved for any
// other booking, or after the hold, confirms nothing (no money moved: nothing to give back);
// a hold the database finds expired is released, as a late payment's would be.
func (b *booking) onGuarantee(ctx workflow.Context, ev domain.PaymentEvent) error {
	if b.status() != domain.StatusHold || !b.state.Booking.PaysAtHotel() || !cardGuarantees(ctx) {
		b.logger.Info("Card guarantee ignored", "setupIntent", ev.Guarantee.SetupIntentID, "status", b.status())
		return nil
	}
	var stored domain.Booking
	err := workflow.ExecuteActivity(dbActivity(ctx), bookings.ConfirmGuaranteed, activities.ConfirmGuaranteedInput{
		BookingID: b.in.BookingID, Card: *ev.Guarantee}).Get(ctx, &stored)
	if conflict(err) {
		if b.state.Booking.Paid > 0 {
			err = b.depositExpired(ctx, nil) // the desk took part of the price: it goes back
		} else if err = b.release(ctx, domain.StatusExpired, "the card was saved after the hold expired", ""); err == nil {
			err = b.bookingOff(ctx, EventExpired, b.state.Reason)
		}
		if errors.Is(err, errCaughtUp) {
			return nil // confirmed by the desk before the card was saved: the card is not needed
		}
		return err
	}
	if err != nil {
		return err
	}
	b.state.Booking, b.state.Reason = stored, "guaranteed by the guest's card: paid at the hotel"
	b.logger.Info("Booking guaranteed by card", "setupIntent", ev.Guarantee.SetupIntentID)
	return b.publish(ctx)
}

// isFee reports whether ev is the provider's word on a fee this booking charged to its card.
func (b *booking) isFee(ev domain.PaymentEvent) bool {
	return ev.FeeKey != "" && strings.HasPrefix(ev.FeeKey, b.in.BookingID+"/fee@")
}

// onFee records the provider's word on the booking's fee: a payment that is not the fee asked
// goes back whole.
func (b *booking) onFee(ctx workflow.Context, ev domain.PaymentEvent) error {
	if !cardGuarantees(ctx) {
		return nil
	}
	in := activities.FeeOutcomeInput{BookingID: b.in.BookingID, Key: ev.FeeKey, Reason: ev.Reason}
	if ev.Succeeded {
		pay := ev.Payment()
		in.Payment = &pay
	}
	var stored domain.Booking
	err := workflow.ExecuteActivity(dbActivity(ctx), fees.FeeOutcome, in).Get(ctx, &stored)
	switch {
	case conflict(err) && in.Payment != nil:
		return b.refundExtra(ctx, *in.Payment, IssueDuplicatePayment, "a payment of a fee the booking did not ask: "+
			err.Error())
	case conflict(err):
		return nil // the failure of a payment that was never the fee's
	case err != nil:
		return err
	}
	return b.feeSettled(ctx, stored)
}

// chargeFee charges the card of a guaranteed booking that ended keeping keep of its price, and
// gave givenBack of what was paid at the hotel back for it, what its terms keep beyond what its
// guest paid there (the database reads that: db.Store.StartFee). keptNow, what the booking
// keeps of the desk's money, is how versions before feeByDatabase judged that a fee was due
// (their histories replay by it). Nothing for any other booking, which asks no version marker.
func (b *booking) chargeFee(ctx workflow.Context, kind string, keep, givenBack, keptNow int64) error {
	if !b.state.Booking.Guaranteed || keep <= 0 {
		return nil
	}
	switch v := cardGuaranteeVersion(ctx); {
	case v < 1, v < feeByDatabase && keep-max(keptNow, 0) <= 0:
		return nil
	case v >= feeAfterAnswer:
		b.feeDue = &feeDue{kind: kind, keep: keep, givenBack: givenBack}
		return nil
	}
	return b.charge(ctx, feeDue{kind: kind, keep: keep, givenBack: givenBack})
}

// flushFee charges the fee a step asked for, once its request was answered: a cancel is not held
// up by the card's provider.
func (b *booking) flushFee(ctx workflow.Context) error {
	due := b.feeDue
	if due == nil {
		return nil
	}
	b.feeDue = nil
	return b.charge(ctx, *due)
}

// charge charges the fee due to the booking's card.
func (b *booking) charge(ctx workflow.Context, due feeDue) error {
	opts := workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second, ScheduleToCloseTimeout: feeChargeFor,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 10 * time.Minute}}
	var stored domain.Booking
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), fees.ChargeFee, activities.ChargeFeeInput{
		BookingID: b.in.BookingID, Kind: due.kind, Keep: due.keep, GivenBack: due.givenBack,
		Currency: b.state.Booking.Price.Currency}).Get(ctx, &stored)
	var timeout *temporal.TimeoutError
	if errors.As(err, &timeout) {
		b.state.Issue, b.state.Reason = IssueFeeDeclined, "the provider did not answer the charge of the fee: "+err.Error()
		b.logger.Error("Fee charge unanswered; flagged for staff", "kind", due.kind)
		return b.publish(ctx)
	}
	if err != nil {
		return err
	}
	return b.feeSettled(ctx, stored)
}

// feeSettled takes the booking as the fee left it; a declined fee is flagged for staff.
func (b *booking) feeSettled(ctx workflow.Context, stored domain.Booking) error {
	b.state.Booking = stored
	if f := stored.Fee; f != nil {
		b.logger.Info("Fee charged to the card", "kind", f.Kind, "amount", f.Amount, "status", f.Status)
		if f.Status == domain.FeeDeclined {
			b.state.Issue, b.state.Reason = IssueFeeDeclined, "the card refused the fee: "+f.Reason
		}
	}
	return b.publish(ctx)
}

// lateCancelFee charges a guaranteed booking cancelled at instant at what its policy keeps of its
// price then, beyond what its guest paid at the hotel and keeps.
func (b *booking) lateCancelFee(ctx workflow.Context, at time.Time) error {
	bk := b.state.Booking
	if !bk.Guaranteed {
		return nil
	}
	refund, err := bk.PolicyRefund(bk.Price.Total, bk.Price.Currency, at)
	if err != nil {
		return err
	}
	var givenBack int64 // what the cancel gives back of the desk's payments
	if bk.Status == domain.StatusRefunding || bk.Status == domain.StatusRefunded {
		givenBack = bk.RefundDue
	}
	return b.chargeFee(ctx, domain.FeeLateCancel, bk.Price.Total-refund, givenBack, bk.Paid-givenBack)
}
