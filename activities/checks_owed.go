package activities

import (
	"context"
	"fmt"
	"strings"

	"github.com/bookflow/bookflow/domain"
)

// owedStaffRefunds finds money bookings gave up to staff refunds (a goodwill refund, an early
// departure, a reversal: what the booking keeps was lowered when it was recorded) that no attempt
// gave back and none is asking for, while no workflow of the booking runs that would give it back
// (its own, or its StaffRefund workflow): it was lost with the workflow that recorded it, whatever
// the booking's status (a no-show, a stay whose workflow closed, a refunded booking). A workflow
// that runs is left to it (a refund stuck there is PAYMENT_STUCK, for an operator). With repairs,
// a run of the booking's StaffRefund workflow gives the parts back, as a recovery finishes a
// refund: the amount was decided when the refund was recorded, and attempts that gave it back are
// never made again.
func (a *Checks) owedStaffRefunds(ctx context.Context, in CheckInput) ([]domain.Finding, error) {
	owed, err := a.Store.OwedStaffRefunds(ctx)
	if err != nil {
		return nil, err
	}
	var out []domain.Finding
	for i, o := range owed {
		if i > 0 && owed[i-1].BookingID == o.BookingID {
			continue // one finding a booking
		}
		f, err := a.owedStaffRefund(ctx, in, o.BookingID)
		if err != nil {
			return out, err
		}
		if f != nil {
			out = append(out, *f)
		}
	}
	return out, nil
}

// owedStaffRefund checks and, with repairs, gives back one booking's owed staff refunds: nil when
// a workflow of the booking runs, or when nothing is owed any more (given back since it was
// listed). Its error is an audit's; a booking it could not check or repair is a finding.
func (a *Checks) owedStaffRefund(ctx context.Context, in CheckInput, bookingID string) (*domain.Finding, error) {
	running, err := a.running(ctx, bookingID)
	if err == nil && !running {
		running, err = a.running(ctx, domain.StaffRefundWorkflowID(bookingID))
	}
	if err != nil {
		f := notChecked(bookingID, err)
		return &f, nil
	}
	if running {
		return nil, nil
	}
	// Read again now that no workflow runs: one that ran when the list was read may have given
	// the money back and closed since.
	parts, err := a.Store.UnfinishedStaffRefunds(ctx, bookingID)
	if err != nil {
		f := notChecked(bookingID, err)
		return &f, nil
	}
	var total int64
	var currency string
	var steps []string
	for _, p := range parts {
		if !p.InFlight {
			total, currency, steps = total+p.Payment.Amount, p.Payment.Currency, append(steps, p.Step)
		}
	}
	if len(steps) == 0 {
		return nil, nil
	}
	b, err := a.Store.GetBooking(ctx, bookingID)
	if err != nil {
		f := notChecked(bookingID, err)
		return &f, nil
	}
	f := &domain.Finding{Check: domain.CheckRefundOwed, BookingID: bookingID, PaymentID: b.PaymentID,
		Detail: fmt.Sprintf("%s: %d %s its staff refunds gave up (%s) and no attempt gave back, and no workflow gives it back",
			b.Status, total, currency, strings.Join(steps, ", "))}
	switch {
	case !in.Repair || a.GiveStaffRefunds == nil:
		f.Detail += " (POST /api/v1/staff/bookings/" + bookingID + "/resume)"
	default:
		if err := a.GiveStaffRefunds(ctx, b); err != nil {
			nf := notChecked(bookingID, fmt.Errorf("give the staff refunds back: %w", err))
			return &nf, nil
		}
		f.Repaired = "given back in workflow " + domain.StaffRefundWorkflowID(bookingID)
		if err := a.audit(ctx, "give-staff-refunds", bookingID, *f); err != nil {
			return f, err
		}
	}
	return f, nil
}
