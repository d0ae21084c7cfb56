package activities

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/bookflow/bookflow/domain"
)

// ErrTypeAhead answers a step the booking workflow asked for a hold when the database holds the
// booking confirmed: a confirmation the workflow ran as a local activity committed, and the
// workflow task that ran it was lost (its worker died). The retried task decided again with what
// arrived meanwhile (a cancel, the hold's expiry) before that payment. The error's details hold
// the booking as the database has it, for the workflow to carry on from there. Only a workflow
// that asks for it (CatchUp in the step's input) gets it; others get ErrTypeConflict, as before.
const ErrTypeAhead = "BookingAhead"

// aheadOfHold returns ErrTypeAhead with b when catchUp is asked, err is a conflict and b is
// confirmed; otherwise err as classify makes it.
func aheadOfHold(catchUp bool, b domain.Booking, err error) error {
	if !catchUp || !errors.Is(err, domain.ErrConflict) || b.Status != domain.StatusConfirmed {
		return classify(err)
	}
	return aheadError(b)
}

// aheadError says what the database already did: "already confirmed by payment P".
func aheadError(b domain.Booking) error {
	by := "without an online payment"
	if b.PaymentID != "" {
		by = "by payment " + b.PaymentID
	}
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf("booking %s is already confirmed %s", b.ID, by),
		ErrTypeAhead, nil, b)
}
