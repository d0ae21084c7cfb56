package api

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// A no-show marked by hand (issue 39): the desk need not wait for the deadline (noon the day
// after check-in at a hotel, a venue order's last slot's end plus the venue's grace) once the
// booking has started and nobody came. The booking's workflow takes the deadline's own step
// (workflows.UpdateNoShow): the units go back, what the plan's no-show terms do not keep is
// refunded, a guaranteed booking's card is charged what they keep; the deadline then does nothing.

// noShowBooking marks a confirmed booking whose start has passed, nobody checked in, a no-show,
// audited as no-show with the reason given and the money before and after. Asked again it
// answers the booking as it is, without a second audit.
func (s *Server) noShowBooking(c echo.Context) error {
	b, err := s.staffBooking(c, domain.Principal.CanBookAt)
	if err != nil {
		return err
	}
	reason, err := cancelReason(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if b.Status == domain.StatusNoShow { // asked again: the booking as it is
		money, err := s.store.BookingMoneySummary(ctx, b)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, moneyView{bookingView: staffView(b, ""), Money: money})
	}
	if err := noShowable(b, s.cfg.Now()); err != nil {
		return err
	}
	before, err := s.store.BookingMoneySummary(ctx, b)
	if err != nil {
		return err
	}
	state, err := s.askBooking(c, b.ID, workflows.UpdateNoShow, staffView, domain.StatusNoShow)
	if err != nil {
		return err
	}
	after, err := s.store.BookingMoneySummary(ctx, state.Booking)
	if err != nil {
		return err
	}
	if err := s.audit(c, "no-show", b.ID, reason, map[string]any{"statusAfter": state.Booking.Status,
		"refund": b.Paid - state.Booking.Paid, "currency": b.Price.Currency, "before": before, "after": after}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, moneyView{bookingView: staffView(state.Booking, state.Reason), Money: after})
}

// noShowable refuses what the workflow's validator would, before asking it: a booking not
// confirmed (409 wrong_state), or not started at now (409 too_early): a stay before its check-in
// date at the hotel, a venue order before its first slot starts.
func noShowable(b domain.Booking, now time.Time) error {
	if b.Status != domain.StatusConfirmed {
		return newError(http.StatusConflict, "wrong_state", "booking %s is %s: only a confirmed booking nobody "+
			"checked in is marked a no-show", b.ID, b.Status)
	}
	started := b.StayBegun(now)
	if b.VenueID != "" {
		started = !now.Before(b.OrderStarts())
	}
	if !started {
		return errNoShowTooEarly
	}
	return nil
}

// errNoShowTooEarly answers a no-show asked before the booking started (the workflow's
// ErrTypeTooEarly).
var errNoShowTooEarly = newError(http.StatusConflict, "too_early", "a no-show is marked from the check-in date at "+
	"the hotel, or from the start of a venue booking's first slot")
