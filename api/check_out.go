package api

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// Check-out (issue 39): a checked-in hotel guest leaves. Before the stay's last night it is an
// early departure first (the booking's workflow gives the nights from today back, tonight
// included, and refunds what the policy says of them: workflows.UpdateCheckOut), then the
// booking records that the guest has gone.

// departure is what checking a guest out does, or did, to the stay: the day the stay ends, the
// nights not stayed, what the policy gives back of them and why, and what is still due.
type departure struct {
	CheckOut        domain.Date `json:"checkOut"`
	Early           bool        `json:"early"`
	NightsNotStayed int         `json:"nightsNotStayed"`
	Refund          int64       `json:"refund"`
	Currency        string      `json:"currency"`
	// Policy is the booking's early-departure rule: all (the nights not stayed come back),
	// all_but_first (all but the first of them), none (the policy keeps them).
	Policy string `json:"policy"`
	Due    int64  `json:"due"`
}

// checkOutView answers a check-out: the booking with its money and what the departure did.
type checkOutView struct {
	moneyView
	Departure departure `json:"departure"`
}

// plannedDeparture is what checking booking b out now would do.
func (s *Server) plannedDeparture(c echo.Context, b domain.Booking) (departure, error) {
	today, err := b.TodayAtHotel(s.cfg.Now())
	if err != nil {
		return departure{}, err
	}
	policy := b.CancellationPolicy.EarlyDeparture
	if policy == "" {
		policy = domain.EarlyDepartureNone
	}
	d := departure{CheckOut: b.CheckOut, Currency: b.Price.Currency, Policy: policy}
	var given int64 // what the policy gives up of the nights not stayed (db.Store.DepartEarly)
	// A check-out ends the stay today at the hotel: tonight is not stayed (on the check-in day,
	// the first night is kept). db.Store.CheckOutEarly judges it again, by the update's time.
	end := today
	if !end.After(b.CheckIn) {
		end = b.CheckIn.AddDays(1)
	}
	if b.CheckedOutAt.IsZero() && end.Before(b.CheckOut) {
		d.CheckOut, d.Early, d.NightsNotStayed = end, true, end.DaysUntil(b.CheckOut)
		var err error
		if given, d.Refund, err = s.store.PlanDeparture(c.Request().Context(), b, end); err != nil {
			return departure{}, err
		}
	}
	money, err := s.store.BookingMoneySummary(c.Request().Context(), b)
	if err != nil {
		return departure{}, err
	}
	d.Due = max(money.Due-given, 0) // all that is given up comes off the price, refunded or never paid
	return d, nil
}

// checkOutPreview answers what checking the guest out now would do, changing nothing.
func (s *Server) checkOutPreview(c echo.Context) error {
	b, err := s.checkOutable(c)
	if err != nil {
		return err
	}
	d, err := s.plannedDeparture(c, b)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, d)
}

// checkOutBooking checks a checked-in hotel guest out: an early departure first when the stay
// had nights left after today, then the check-out recorded. Asked again it answers as the first.
func (s *Server) checkOutBooking(c echo.Context) error {
	b, err := s.checkOutable(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	d, err := s.plannedDeparture(c, b)
	if err != nil {
		return err
	}
	before, err := s.store.BookingMoneySummary(ctx, b)
	if err != nil {
		return err
	}
	checkOutBefore, paidBefore := b.CheckOut, b.Paid
	if d.Early {
		state, err := s.askBooking(c, b.ID, workflows.UpdateCheckOut, staffView, b.Status)
		if err != nil {
			return err
		}
		d.Refund = paidBefore - state.Booking.Paid
	}
	stored, err := s.store.CheckOut(db.WithActor(ctx, principal(c).Subject), b.ID)
	if err != nil {
		return err
	}
	after, err := s.store.BookingMoneySummary(ctx, stored)
	if err != nil {
		return err
	}
	d.Due = after.Due
	if !b.CheckedOutAt.IsZero() { // asked again: the first one's answer
		d = departure{CheckOut: stored.CheckOut, Currency: stored.Price.Currency, Policy: d.Policy, Due: after.Due}
	} else if err := s.audit(c, "check-out", b.ID, checkOutReason(d), map[string]any{"checkOutBefore": checkOutBefore,
		"checkOutAfter": stored.CheckOut, "nightsNotStayed": d.NightsNotStayed, "amount": d.Refund, "currency": d.Currency,
		"before": before, "after": after}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, checkOutView{moneyView: moneyView{bookingView: staffView(stored, ""), Money: after}, Departure: d})
}

// checkOutable is the booking in the path when its staff member may check it out: a hotel's
// stay, checked in (or checked out already: asked again).
func (s *Server) checkOutable(c echo.Context) (domain.Booking, error) {
	b, err := s.staffBooking(c, domain.Principal.CanBookAt)
	switch {
	case err != nil:
		return b, err
	case b.VenueID != "":
		return b, newError(http.StatusConflict, "wrong_state", "a venue booking ends with its last slot, without a check-out")
	case b.Status != domain.StatusCompleted:
		return b, newError(http.StatusConflict, "wrong_state", "booking %s is %s: only a checked-in guest is checked out", b.ID, b.Status)
	}
	return b, nil
}

// checkOutReason is the audit's reason of a check-out.
func checkOutReason(d departure) string {
	if !d.Early {
		return "check-out"
	}
	return fmt.Sprintf("early departure: %d night(s) not stayed, %d %s given back by the policy (%s)", d.NightsNotStayed,
		d.Refund, d.Currency, d.Policy)
}
