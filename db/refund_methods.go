package db

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// How a staff refund is given back (issue 39, defect 9; migration 00061). Left out, each part goes
// back as it was paid: a desk payment's at the desk by its method, a provider's through the
// provider. The desk may choose instead to hand the whole refund over in cash or on the card
// terminal (a guest who paid online takes cash back: the attempts are recorded as made at the
// desk, never sent to the provider), or to send it only to the card (refused when a part was
// paid at the desk: the provider has no card to give cash back to). Or whoever asks makes it by
// bank transfer (migration 00063): finance's refund to a guest who paid at the desk and has gone,
// recorded at once in their name, never waiting at the drawer.

// RefundMethods are the methods a staff refund may be given back by.
var RefundMethods = []string{domain.MethodCash, domain.MethodCardTerminal, domain.MethodBankTransfer, domain.MethodProvider}

// checkRefundMethod checks staff refund r's method against the parts it draws on.
func checkRefundMethod(ctx context.Context, tx pgx.Tx, r StaffRefund) error {
	switch {
	case r.Method == "":
		return nil
	case !slices.Contains(RefundMethods, r.Method):
		return fmt.Errorf("%w: a refund is given back by %s", domain.ErrInvalid, strings.Join(RefundMethods, ", "))
	case r.Kind == RefundReversal:
		return fmt.Errorf("%w: a reversal gives a payment entered by mistake back by its own method: leave method out",
			domain.ErrInvalid)
	case r.Method != domain.MethodProvider:
		return nil
	}
	for _, p := range r.Parts {
		var method string
		err := tx.QueryRow(ctx, `SELECT method FROM payments WHERE payment_id = $1`, p.ID).Scan(&method)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if err == nil && method != domain.MethodProvider {
			return fmt.Errorf("%w: %d %s of this refund was paid at the desk (%s, payment %s): the provider cannot give it "+
				"back; give it back in cash, on the terminal or by bank transfer", domain.ErrConflict, p.Amount, p.Currency, method, p.ID)
		}
	}
	return nil
}

// staffTerms is what the staff refund an attempt belongs to says of how it is given back.
type staffTerms struct {
	method string // the desk method chosen, or "": as it was paid (or only to the card)
	away   bool   // asked away from the desk (finance): a part at the desk waits for a hand-over
}

// staffRefundTerms reads the terms of the staff refund that attempt a belongs to: none when the
// attempt is no staff refund's. A staff refund under key has attempts <bookingId>/staff-<key>/<n>
// (its first part) and <bookingId>/staff-<key>@<paymentId>/<n> (StaffRefundStep). A client's key
// never holds "@", but a derived one does (no-show@<date>): of the refunds whose steps begin the
// attempt's id, the longest key is the attempt's (a client's key "no-show" is not the no-show's
// refund).
func staffRefundTerms(ctx context.Context, tx pgx.Tx, a RefundAttempt) (staffTerms, error) {
	var t staffTerms
	if !strings.HasPrefix(a.ID, a.BookingID+"/staff-") {
		return t, nil
	}
	err := tx.QueryRow(ctx, `SELECT COALESCE(method, ''), away_from_desk FROM staff_refunds r WHERE r.booking_id = $1
			AND `+refundOfAttempt+` ORDER BY length(r.id) DESC LIMIT 1`, a.BookingID, a.ID).Scan(&t.method, &t.away)
	if errors.Is(err, pgx.ErrNoRows) {
		return staffTerms{}, nil
	}
	if t.method == domain.MethodProvider {
		t.method = ""
	}
	return t, err
}

// refundOfAttempt holds for a staff refund r whose steps begin attempt id $2 (of booking $1).
var refundOfAttempt = staffRefundBegins("$1", "$2")

// staffRefundBegins is the condition that staff refund r's steps begin attempt id attempt of
// booking: its key is r.id less "<booking>/", and its steps are staff-<key>/ and staff-<key>@.
func staffRefundBegins(booking, attempt string) string {
	return fmt.Sprintf(`(starts_with(%[2]s, %[1]s || '/staff-' || substr(r.id, length(%[1]s) + 2) || '/')
	OR starts_with(%[2]s, %[1]s || '/staff-' || substr(r.id, length(%[1]s) + 2) || '@'))`, booking, attempt)
}
