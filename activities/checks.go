package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// CheckerActor is who the audit log, and the booking's history, show for the invariant
// checker's repairs (a system actor: no token's subject can take it).
const CheckerActor = db.ActorInvariantChecker

// Defaults for CheckInput fields left zero.
const (
	DefaultHoldGrace    = 5 * time.Minute
	DefaultRefundingAge = 10 * time.Minute
	DefaultUnmatchedAge = time.Hour
	// DefaultUnsettledAge is how long a refund attempt may stay requested or pending: a day
	// (the wait for the provider's word) and an hour.
	DefaultUnsettledAge = 25 * time.Hour
)

// CheckInput configures a run of the invariant checker.
type CheckInput struct {
	Repair bool // repair what is safe to repair
	// HoldGrace is how long past its expiry a HOLD may be before it counts; RefundingAge how
	// long a booking may be REFUNDING before its saga is looked for; UnmatchedAge how old a
	// payment must be before it counts as unmatched (a late payment's refund may be on its way);
	// UnsettledAge how long a refund attempt may stay unsettled.
	HoldGrace, RefundingAge, UnmatchedAge, UnsettledAge time.Duration
}

// Checks runs the invariant checks: inventory, orphaned holds and refunds, money.
type Checks struct {
	Store    *db.Store
	Temporal client.Client
	// StartRecovery starts the workflow that finishes an orphaned booking's refund, with id
	// domain.RefundRecoveryID(bookingID); the worker wires it to its task queue.
	StartRecovery func(ctx context.Context, bookingID string) error
	// EndedActive lists the bookings whose latest workflow run was terminated or failed; Resume
	// starts such a booking's workflow again in its current state. The worker wires both
	// (worker/resume.go).
	EndedActive func(ctx context.Context) ([]string, error)
	Resume      func(ctx context.Context, b domain.Booking) error
	// TellSupplier starts telling a booking's supplier again that the booking is off.
	TellSupplier func(ctx context.Context, bookingID string) error
	// GiveStaffRefunds starts a run of the booking's StaffRefund workflow that gives back the
	// parts of its staff refunds no workflow gives back (worker.GiveStaffRefunds).
	GiveStaffRefunds func(ctx context.Context, b domain.Booking) error
}

// RunChecks runs every check and, with in.Repair, repairs what is safe: an orphaned HOLD (its
// workflow is gone) is released; an orphaned REFUNDING booking gets a workflow that finishes its
// refund, and staff refunds no workflow gives back any more a run of the booking's StaffRefund
// workflow that gives them (refunds already decided, as a recovery's). Money is never changed by
// the checker otherwise: unmatched payments, refunds paid twice and bookings whose money does not
// add up are reported for an operator. The report is saved, and repairs are audited.
//
// One run at a time: a run that finds another under way returns at once, Skipped.
func (a *Checks) RunChecks(ctx context.Context, in CheckInput) (domain.CheckReport, error) {
	in = withCheckDefaults(in)
	report := domain.CheckReport{StartedAt: time.Now(), Repair: in.Repair, Findings: []domain.Finding{}}
	ran, err := a.Store.WithCheckLock(ctx, func() error {
		add := func(f []domain.Finding, err error) error {
			report.Findings = append(report.Findings, f...)
			return err
		}
		if err := errors.Join(
			add(a.Store.InventoryMismatches(ctx)),
			add(a.Store.BlockMismatches(ctx)),
			add(a.orphanedHolds(ctx, in)),
			add(a.Store.BalancesPastDue(ctx, in.HoldGrace)),
			add(a.Store.FeesNotCharged(ctx, in.UnsettledAge)),
			add(a.orphanedRefunds(ctx, in)),
			add(a.orphanedBookings(ctx, in)),
			add(a.suppliersNotTold(ctx, in)),
			add(a.owedStaffRefunds(ctx, in)), // after orphanedBookings: a booking it resumed gives them
			add(a.Store.UnmatchedPayments(ctx, in.UnmatchedAge)),
			add(a.Store.RefundsPaidTwice(ctx)),
			add(a.Store.UnsettledRefunds(ctx, in.UnsettledAge)),
			add(a.Store.MoneyMismatches(ctx)),
			add(a.Store.LedgerMismatches(ctx)),
		); err != nil {
			return err
		}
		report.FinishedAt = time.Now()
		return a.Store.SaveCheck(ctx, report)
	})
	report.Skipped = !ran && err == nil
	return report, err
}

func withCheckDefaults(in CheckInput) CheckInput {
	if in.HoldGrace <= 0 {
		in.HoldGrace = DefaultHoldGrace
	}
	if in.RefundingAge <= 0 {
		in.RefundingAge = DefaultRefundingAge
	}
	if in.UnmatchedAge <= 0 {
		in.UnmatchedAge = DefaultUnmatchedAge
	}
	if in.UnsettledAge <= 0 {
		in.UnsettledAge = DefaultUnsettledAge
	}
	return in
}

// orphanedHolds reports holds long past their expiry. One whose workflow still runs is left to
// it (reported, as it is late); one whose workflow is gone is released.
func (a *Checks) orphanedHolds(ctx context.Context, in CheckInput) ([]domain.Finding, error) {
	holds, err := a.Store.HoldsPastExpiry(ctx, in.HoldGrace)
	if err != nil {
		return nil, err
	}
	var out []domain.Finding
	for _, b := range holds {
		f := domain.Finding{Check: domain.CheckHoldPastExpiry, BookingID: b.ID,
			Detail: fmt.Sprintf("on hold since its expiry at %s", b.ExpiresAt.UTC().Format(time.RFC3339))}
		running, err := a.running(ctx, b.ID)
		switch {
		case err != nil:
			out = append(out, notChecked(b.ID, err))
			continue
		case running:
			f.Detail += "; its workflow is running but has not released it"
		case in.Repair:
			if _, err := a.Store.Release(db.WithActor(ctx, CheckerActor), b.ID, domain.StatusExpired); err != nil {
				out = append(out, notChecked(b.ID, fmt.Errorf("release the orphaned hold: %w", err)))
				continue
			}
			f.Repaired = "released: its workflow is gone"
			if err := a.audit(ctx, "release-orphaned-hold", b.ID, f); err != nil {
				return out, err
			}
		default:
			f.Detail += "; its workflow is gone"
		}
		out = append(out, f)
	}
	return out, nil
}

// orphanedRefunds finds REFUNDING bookings no workflow refunds any more (their own workflow, or
// a recovery) and starts a recovery that finishes the refund, unless the lost saga's last
// attempt had failed and none gave it back: the refund was then in trouble (perhaps settled by
// hand by an operator who then ended the workflow), so it is reported for an operator to restart
// or resolve. One given back (an operator's resolution recorded, say) is finished: nothing is
// sent again.
func (a *Checks) orphanedRefunds(ctx context.Context, in CheckInput) ([]domain.Finding, error) {
	refunding, err := a.Store.RefundingSince(ctx, in.RefundingAge)
	if err != nil {
		return nil, err
	}
	var out []domain.Finding
	for _, b := range refunding {
		running, err := a.running(ctx, b.ID)
		if err == nil && !running {
			running, err = a.running(ctx, domain.RefundRecoveryID(b.ID))
		}
		if err != nil {
			out = append(out, notChecked(b.ID, err))
			continue
		}
		if running {
			continue // a saga is on it, stuck for an operator or not
		}
		f := domain.Finding{Check: domain.CheckRefundingOrphan, BookingID: b.ID, PaymentID: b.PaymentID,
			Detail: fmt.Sprintf("%d %s due back and no workflow refunding it", b.RefundDue, b.Price.Currency)}
		step, err := a.Store.RefundStep(ctx, b.ID, "refund")
		switch {
		case err != nil:
			out = append(out, notChecked(b.ID, err))
			continue
		case !step.Given && step.LastStatus == RefundFailed:
			f.Detail += "; its last attempt had failed: restart it (POST /api/v1/staff/bookings/" + b.ID +
				"/refund/recover) or settle it by hand"
		case in.Repair:
			if err := a.StartRecovery(ctx, b.ID); err != nil {
				out = append(out, notChecked(b.ID, fmt.Errorf("start the refund recovery: %w", err)))
				continue
			}
			f.Repaired = "refund saga restarted in workflow " + domain.RefundRecoveryID(b.ID)
			if err := a.audit(ctx, "restart-refund", b.ID, f); err != nil {
				return out, err
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// orphanedBookings finds confirmed or checked-in bookings whose workflow was terminated or failed:
// nothing can cancel or refund them. Resuming one changes no money and no unit, so the checker
// does it when repairing.
func (a *Checks) orphanedBookings(ctx context.Context, in CheckInput) ([]domain.Finding, error) {
	if a.EndedActive == nil {
		return nil, nil
	}
	ids, err := a.EndedActive(ctx)
	if err != nil {
		return []domain.Finding{notChecked("", fmt.Errorf("list the booking workflows that ended: %w", err))}, nil
	}
	var out []domain.Finding
	for _, id := range ids {
		b, err := a.Store.GetBooking(ctx, id)
		switch {
		case errors.Is(err, domain.ErrNotFound):
			continue // another deployment's, sharing the namespace
		case err != nil:
			out = append(out, notChecked(id, err))
			continue
		case b.Status != domain.StatusConfirmed && b.Status != domain.StatusCompleted:
			continue // a hold or a refund has checks of its own; a settled booking needs no workflow
		}
		f := domain.Finding{Check: domain.CheckNoWorkflow, BookingID: id, PaymentID: b.PaymentID,
			Detail: fmt.Sprintf("%s and its workflow was terminated or failed: nothing can cancel or refund it", b.Status)}
		if in.Repair {
			if err := a.Resume(ctx, b); err != nil {
				out = append(out, notChecked(id, fmt.Errorf("resume the booking: %w", err)))
				continue
			}
			f.Repaired = "resumed: its workflow runs again in the state the database holds"
			if err := a.audit(ctx, "resume-booking", id, f); err != nil {
				return out, err
			}
		} else {
			f.Detail += " (POST /api/v1/staff/bookings/" + id + "/resume)"
		}
		out = append(out, f)
	}
	return out, nil
}

// suppliersNotTold finds bookings whose supplier could not be told they are off and has not
// acknowledged it since. Telling a supplier again is idempotent, so the checker does it when
// repairing.
func (a *Checks) suppliersNotTold(ctx context.Context, in CheckInput) ([]domain.Finding, error) {
	ids, err := a.Store.SuppliersNotTold(ctx)
	if err != nil || a.TellSupplier == nil {
		return nil, err
	}
	var out []domain.Finding
	for _, id := range ids {
		f := domain.Finding{Check: domain.CheckSupplierNotTold, BookingID: id,
			Detail: "its supplier could not be told the booking is off"}
		if in.Repair {
			if err := a.TellSupplier(ctx, id); err != nil {
				out = append(out, notChecked(id, fmt.Errorf("tell the supplier again: %w", err)))
				continue
			}
			f.Repaired = "telling the supplier again"
			if err := a.audit(ctx, "tell-supplier", id, f); err != nil {
				return out, err
			}
		} else {
			f.Detail += " (POST /api/v1/staff/bookings/" + id + "/tell-supplier)"
		}
		out = append(out, f)
	}
	return out, nil
}

func notChecked(bookingID string, err error) domain.Finding {
	return domain.Finding{Check: domain.CheckNotChecked, BookingID: bookingID, Detail: err.Error()}
}

// running reports whether a workflow with this id runs now.
func (a *Checks) running(ctx context.Context, workflowID string) (bool, error) {
	d, err := a.Temporal.DescribeWorkflow(ctx, workflowID, "")
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return d.RawResponse.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, nil
}

func (a *Checks) audit(ctx context.Context, action, bookingID string, f domain.Finding) error {
	return a.Store.Audit(ctx, db.AuditEntry{Actor: CheckerActor, Action: action, BookingID: bookingID,
		Reason: f.Detail, Details: map[string]any{"check": f.Check, "repaired": f.Repaired}})
}

// RefundToResume is an orphaned booking as its refund recovery finds it.
type RefundToResume struct {
	Booking  domain.Booking
	Currency string // of the payment being given back
	// FirstAttempt is the refund attempt to go on from: the lost saga's last one when its
	// outcome is open or succeeded (resumed under its key), the next one when it failed.
	FirstAttempt int
	// Kept is in results recorded before the ledger drew refunds (versionLedgerDraws): the
	// booking's payments by what of each its refund might draw on. No longer filled: Parts are the
	// ledger's.
	Kept []domain.Payment `json:",omitempty"`
	// Parts are what a REFUNDING booking's refund draws on each payment, as its saga drew them;
	// Part is the first no attempt gave back, which FirstAttempt is then an attempt of (nil in
	// results recorded before: the saga drew them itself, from FirstAttempt of the "refund" step).
	Parts []domain.Payment `json:",omitempty"`
	Part  int              `json:",omitempty"`
}

// LoadRefund loads a booking whose refund a recovery resumes, with its payment's currency and
// the attempt to go on from.
func (a *Checks) LoadRefund(ctx context.Context, bookingID string) (RefundToResume, error) {
	b, err := a.Store.GetBooking(ctx, bookingID)
	if err != nil {
		return RefundToResume{}, classify(err)
	}
	currency, err := a.Store.RefundCurrency(ctx, b)
	if err != nil {
		return RefundToResume{}, err
	}
	// A refund drawn on several payments goes on with the part it was lost at, from that part's
	// own attempts (the "refund" step's are the booking's payment's only).
	progress, err := a.Store.BookingRefundProgress(ctx, b, currency)
	if err != nil {
		return RefundToResume{}, err
	}
	return RefundToResume{Booking: b, Currency: currency, FirstAttempt: progress.FirstAttempt, Parts: progress.Parts,
		Part: progress.Part}, nil
}
