package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// A deposit plan's booking in the workflow (issue 35; the rules: domain/plan_balance.go): its
// deposit confirms the hold, the rest of its price paid online is kept, and the rest not paid by
// its date cancels the booking under its policy.

// versionPlanDeposit marks the workflows that take a deposit plan's deposit, balance and lapse.
// Only a booking sold under a deposit plan asks (none was before it), and it asks GetVersion
// itself: lean bookings took the earlier markers without recording them (b.takes), not this one.
const versionPlanDeposit = "plan-deposit"

// planDeposits reports whether the workflow takes versionPlanDeposit.
func planDeposits(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, versionPlanDeposit, workflow.DefaultVersion, 1) == 1
}

// paysDeposit reports whether pay confirms the booking, on hold, by its deposit: only before its
// balance date (after it, a deposit is given back as a wrong amount and the hold waits for its
// whole price; the database judges the date again by its own clock).
func (b *booking) paysDeposit(ctx workflow.Context, pay domain.Payment) bool {
	return b.status() == domain.StatusHold && b.state.Booking.PaysDeposit(pay.Amount, pay.Currency) &&
		workflow.Now(ctx).Before(b.state.Booking.BalanceDueAt) && planDeposits(ctx)
}

// paysPlanBalance reports whether pay, not an amendment's, is exactly the rest a booking
// confirmed by its deposit owes.
func (b *booking) paysPlanBalance(ctx workflow.Context, ev domain.PaymentEvent) bool {
	owed := b.state.Booking.PlanBalance()
	return owed > 0 && ev.AmendmentID == 0 && ev.Amount == owed && ev.Currency == b.state.Booking.Price.Currency &&
		planDeposits(ctx)
}

// payPlanBalance keeps pay as the rest of the booking's price. When the database no longer sees
// the balance owed (a desk payment or a cancel won the race), pay goes back whole.
func (b *booking) payPlanBalance(ctx workflow.Context, pay domain.Payment) error {
	var stored domain.Booking
	err := workflow.ExecuteActivity(dbActivity(ctx), bookings.PayPlanBalance, activities.PayPlanBalanceInput{
		BookingID: b.in.BookingID, Payment: pay}).Get(ctx, &stored)
	if conflict(err) {
		return b.refundExtra(ctx, pay, IssueDuplicatePayment, "a payment of the balance of a booking that no longer owes it: "+
			err.Error())
	}
	if err != nil {
		return err
	}
	if !b.ledgerDraws(ctx) {
		b.keepLegacy(b.state.Booking, pay)
	}
	b.state.Booking, b.state.Reason = stored, "the balance was paid"
	b.logger.Info("Deposit plan's balance paid", "paymentId", pay.ID, "paid", stored.Paid)
	return b.publish(ctx)
}

// planBalanceTimer starts the timer of the balance's date when the booking owes one.
func (b *booking) planBalanceTimer(ctx, timerCtx workflow.Context) workflow.Future {
	if b.state.Booking.PlanBalance() == 0 || !planDeposits(ctx) {
		return nil
	}
	return workflow.NewTimer(timerCtx, until(ctx, b.state.Booking.BalanceDueAt))
}

// lapsePlanBalance cancels the booking, judged at its balance's date, by its policy, when it
// still owes its balance then: what it keeps of the deposit is the policy's. The balance is due
// before its day begins, so the stay has not begun: never an early departure.
func (b *booking) lapsePlanBalance(ctx workflow.Context) error {
	owed := b.state.Booking.PlanBalance()
	if owed == 0 || !b.status().HoldsInventory() {
		return nil
	}
	due := b.state.Booking.BalanceDueAt
	reason := fmt.Sprintf("the balance of %d %s was not paid by %s", owed, b.state.Booking.Price.Currency,
		due.Format(time.RFC3339))
	return b.cancelWhole(ctx, reason, due, db.ActorPlanBalance)
}
