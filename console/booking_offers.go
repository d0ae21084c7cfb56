package console

import (
	"fmt"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// offers are the actions the booking page offers: only those the booking's state allows, as the
// API, its workflow and the database judge them (api/booking_commands.go, api/staff_money.go,
// workflows/booking_staff_money.go, db/staff_money.go). The API judges again when one is sent.
type offers struct {
	CheckIn      bool
	CheckInOpens string // a confirmed booking's check-in not open yet: when it opens, at the site
	Pay          bool
	Price        bool
	Confirm      bool
	Refund       int64 // the most a refund that keeps the booking gives back; 0 offers none
	ReleaseUnits bool  // a refund may cancel the booking instead of its policy
	// Reverse is, per desk payment that may be reversed, what is left of it to give back.
	Reverse map[string]int64
	Amend   bool
	Move    [][]db.ResourceSummary // per line of a venue order, what it may move to
	Cancel  bool
	// NoShow: a confirmed booking that has started, nobody checked in (booking_no_show.go).
	NoShow bool
	// CheckOut: a checked-in hotel guest not yet checked out (booking_check_out.go); such a
	// stay is never "cancelled" (an early departure is a check-out).
	CheckOut bool
}

// checkInAhead is how long before a venue order's first slot its guest may check in, as the
// API's checkInBooking allows.
const checkInAhead = time.Hour

// offersFor decides what the page offers on booking b for a person who may act on it as its
// desk (desk) or refund it (refund), at now; kept is what is left of each payment the booking
// keeps, venue the venue's resources (a venue order's).
func offersFor(b bookingWithMoney, desk, refund bool, now time.Time, zone *time.Location, kept map[string]int64,
	keptTotal int64, pays []db.PaymentRecord, venue []db.ResourceSummary) offers {
	var o offers
	st := b.Status
	// A hold's expiry as the API saw it (the database's clock decides at last); a channel or a
	// supplier pays for their own bookings (db.deskPayable).
	live := st != domain.StatusHold || b.ExpiresAt.IsZero() || b.ExpiresAt.After(now)
	deskMoney := b.SupplierID == "" && b.ChannelID == ""
	if desk && st == domain.StatusConfirmed {
		opens := b.OrderStarts().Add(-checkInAhead)
		switch {
		case b.VenueID == "" && !b.StayBegun(now): // from the check-in date at the hotel
			o.CheckInOpens = b.CheckIn.String()
		case b.VenueID != "" && now.Before(opens):
			o.CheckInOpens = opens.In(zone).Format("2006-01-02 15:04")
		default:
			o.CheckIn = true
		}
	}
	o.Pay = desk && deskMoney && live && b.Money.Due > 0 && (st.HoldsInventory() || st == domain.StatusNoShow)
	o.Price = desk && deskMoney && live && st == domain.StatusHold && b.Paid == 0 && b.PaymentID == "" && b.Money.Paid == 0
	o.Confirm = desk && live && st == domain.StatusHold && b.SupplierID == ""
	if refund {
		// db.StartStaffRefund: a confirmed, checked-in or no-show booking, or the fee a cancelled
		// one's card paid (less what its cancel gave back), never more than it keeps.
		feeKept := (st == domain.StatusCancelled || st == domain.StatusRefunded) && b.Fee != nil && b.Fee.Status == domain.FeePaid
		switch {
		case st.Used() || st == domain.StatusNoShow:
			o.Refund = min(b.Paid, keptTotal)
		case feeKept && st == domain.StatusRefunded:
			o.Refund = min(b.Paid-b.RefundDue, keptTotal)
		case feeKept:
			o.Refund = min(b.Paid, keptTotal)
		}
		o.Refund = max(o.Refund, 0)
		// workflows refundCancelling: a confirmed booking whose stay has not begun.
		o.ReleaseUnits = st == domain.StatusConfirmed && (b.VenueID != "" || !b.StayBegun(now))
	}
	if desk && (st.Used() || st == domain.StatusNoShow || st == domain.StatusHold) {
		o.Reverse = map[string]int64{}
		for _, p := range pays {
			if left := kept[p.PaymentID]; p.Method != domain.MethodProvider && p.Status == "succeeded" && left > 0 {
				o.Reverse[p.PaymentID] = min(left, b.Paid)
			}
		}
	}
	o.Amend = desk && b.VenueID == "" && st.HoldsInventory()
	if desk && b.VenueID != "" && (st == domain.StatusHold || st == domain.StatusConfirmed) {
		for _, l := range b.Price.Lines {
			o.Move = append(o.Move, moveTargets(l.ResourceID, venue))
		}
	}
	o.Cancel = desk && (st == domain.StatusHold || st == domain.StatusConfirmed)
	o.NoShow = desk && noShowOpen(b.Booking, now)
	o.CheckOut = desk && st == domain.StatusCompleted && b.VenueID == "" && b.CheckedOutAt.IsZero()
	return o
}

// moveTargets are the venue's resources a line on resource id may move to: those of its kind
// and sport (a court to a court of its sport, never to a lane or to rackets).
func moveTargets(id string, venue []db.ResourceSummary) []db.ResourceSummary {
	var own *db.ResourceSummary
	for i := range venue {
		if venue[i].ID == id {
			own = &venue[i]
		}
	}
	if own == nil {
		return []db.ResourceSummary{{ID: id}}
	}
	var out []db.ResourceSummary
	for _, r := range venue {
		if r.Kind == own.Kind && r.Sport == own.Sport && r.Unit == own.Unit {
			out = append(out, r)
		}
	}
	return out
}

// keptByPayment is what is left of each payment a booking keeps, from its ledger: what went to
// its kept account less what left it (a refund asked, a reversal).
func keptByPayment(entries []db.LedgerEntry) map[string]int64 {
	kept := map[string]int64{}
	for _, e := range entries {
		if e.PaymentID == "" {
			continue
		}
		if e.Credit == "kept" {
			kept[e.PaymentID] += e.Amount
		}
		if e.Debit == "kept" {
			kept[e.PaymentID] -= e.Amount
		}
	}
	return kept
}

// shownAs is how a booking stood when its page was drawn, which each action's form carries:
// a refusal says "it changed meanwhile" only when the booking no longer stands so.
func shownAs(b domain.Booking) string {
	return fmt.Sprintf("%s/%d/%d", b.Status, b.Paid, b.Price.Total)
}
