package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/worker"
	"github.com/bookflow/bookflow/workflows"
)

// confirmBooking is for staff: it confirms a hold paid outside the payment provider (at the
// desk). It answers with the outcome: 200 CONFIRMED, or 409 with the status the booking is in
// instead (for example EXPIRED). A supplier's booking is paid through the checkout only: confirmed
// here, nobody could collect its price (409 supplier_booking).
func (s *Server) confirmBooking(c echo.Context) error {
	b, err := s.staffBooking(c, domain.Principal.CanBookAt)
	if err != nil {
		return err
	}
	if err := paidThroughTheCheckout(b); err != nil {
		return err
	}
	state, err := s.askBooking(c, b.ID, workflows.UpdateConfirm, staffView, domain.StatusConfirmed)
	return s.answerAudited(c, state, err, "confirm")
}

// cancelBooking cancels the customer's booking on hold or confirmed and gives its nights back.
// A paid booking answers REFUNDING: its nights are released and the refund its hotel's policy
// allows is on its way (REFUNDED once the provider confirms).
func (s *Server) cancelBooking(c echo.Context) error {
	b, err := s.ownBooking(c)
	if err != nil {
		return err
	}
	switch {
	case b.VenueID != "" && b.Status == domain.StatusCompleted:
		return newError(http.StatusConflict, "checked_in", "the booking was checked in; the front desk can still refund it")
	case b.FreeCancelEnded(s.cfg.Now()):
		return newError(http.StatusConflict, "cancellation_closed", "free cancellation ended %d hours before the "+
			"booking starts; the front desk can still refund it", b.CancellationPolicy.FreeUntilHours)
	case b.VenueID == "" && b.StayBegun(s.cfg.Now()) && b.Status.HoldsInventory():
		return newError(http.StatusConflict, "stay_started",
			"the stay has begun: an early departure is arranged at the front desk")
	}
	state, err := s.askBooking(c, b.ID, workflows.UpdateCancel, customerView, cancelled...)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, customerView(state.Booking, state.Reason))
}

// staffCancelBooking cancels a booking of the staff member's hotel, as the guest could; once a
// confirmed stay has begun it is an early departure: the booking stays CONFIRMED with the nights
// after today at the hotel given back.
func (s *Server) staffCancelBooking(c echo.Context) error {
	b, err := s.staffBooking(c, domain.Principal.CanBookAt)
	if err != nil {
		return err
	}
	reason, err := cancelReason(c)
	if err != nil {
		return err
	}
	want := cancelled
	if b.VenueID == "" && b.Status.Used() && b.StayBegun(s.cfg.Now()) {
		want = []domain.Status{b.Status} // an early departure
	}
	if b.VenueID != "" && b.Status == domain.StatusCompleted {
		return newError(http.StatusConflict, "checked_in", "the booking was checked in: cancelling it would put its "+
			"units back on sale while they are in use")
	}
	if len(want) == 1 {
		return s.departEarly(c, b)
	}
	state, err := s.askBooking(c, b.ID, workflows.UpdateCancel, staffView, want...)
	if err != nil {
		return err
	}
	if err := s.audit(c, "cancel", state.Booking.ID, reason, map[string]any{"statusAfter": state.Booking.Status}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, staffView(state.Booking, state.Reason))
}

// cancelReason is the reason a staff cancel may carry (`{"reason": "..."}`, at most 500 characters),
// for its audit entry; a cancel without a body has none.
func cancelReason(c echo.Context) (string, error) {
	if c.Request().ContentLength == 0 {
		return "", nil
	}
	var body struct {
		Reason string `json:"reason"`
	}
	if err := decodeJSON(c, &body); err != nil {
		return "", err
	}
	if domain.Longer(body.Reason, maxReason) {
		return "", fmt.Errorf("%w: reason is at most %d characters", domain.ErrInvalid, maxReason)
	}
	return strings.TrimSpace(body.Reason), nil
}

// departEarly is a staff cancel of a confirmed stay that has begun: an early departure, audited
// with the refund its policy gave for the nights not stayed and the booking's money before and
// after.
func (s *Server) departEarly(c echo.Context, b domain.Booking) error {
	ctx := c.Request().Context()
	before, err := s.store.BookingMoneySummary(ctx, b)
	if err != nil {
		return err
	}
	state, err := s.askBooking(c, b.ID, workflows.UpdateCancel, staffView, b.Status)
	if err != nil {
		return err
	}
	after, err := s.store.BookingMoneySummary(ctx, state.Booking)
	if err != nil {
		return err
	}
	if err := s.audit(c, "cancel", b.ID, "early departure", map[string]any{"statusAfter": state.Booking.Status,
		"checkOutBefore": b.CheckOut, "checkOutAfter": state.Booking.CheckOut, "amount": b.Paid - state.Booking.Paid,
		"currency": b.Price.Currency, "before": before, "after": after}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, moneyView{bookingView: staffView(state.Booking, state.Reason), Money: after})
}

// checkInBooking is for staff: it checks a confirmed booking's guest in (COMPLETED), from its
// check-in date at the hotel, or from an hour before a venue order's first slot.
func (s *Server) checkInBooking(c echo.Context) error {
	b, err := s.staffBooking(c, domain.Principal.CanBookAt)
	if err != nil {
		return err
	}
	now := s.cfg.Now()
	early := b.VenueID == "" && !b.StayBegun(now)
	if b.VenueID != "" {
		early = now.Before(b.OrderStarts().Add(-checkInAhead))
	}
	if b.Status == domain.StatusConfirmed && early {
		return newError(http.StatusConflict, "too_early", "check-in opens on the check-in date at the hotel, "+
			"or an hour before a venue booking starts")
	}
	state, err := s.askBooking(c, b.ID, workflows.UpdateCheckIn, staffView, domain.StatusCompleted)
	return s.answerAudited(c, state, err, "check-in")
}

// checkInAhead is how long before a venue booking starts its guest may check in.
const checkInAhead = time.Hour

// cancelled are the statuses a successful cancel leaves a booking in.
var cancelled = []domain.Status{domain.StatusCancelled, domain.StatusRefunding, domain.StatusRefunded}

// answerAudited answers a staff action on a booking and writes it to the audit log.
func (s *Server) answerAudited(c echo.Context, state workflows.BookingState, err error, action string) error {
	if err != nil {
		return err
	}
	if err := s.audit(c, action, state.Booking.ID, "", map[string]any{"statusAfter": state.Booking.Status}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, staffView(state.Booking, state.Reason))
}

// askBooking sends an update to the booking's workflow and returns the state it leads to when
// the booking ends up in one of the statuses wanted; otherwise 409 with the status it is in.
func (s *Server) askBooking(c echo.Context, id, update string, view viewer, want ...domain.Status) (workflows.BookingState, error) {
	ctx, cancel := context.WithTimeout(c.Request().Context(), s.cfg.WorkflowTimeout)
	defer cancel()
	ask := client.UpdateWorkflowOptions{
		WorkflowID: id, UpdateName: update, WaitForStage: client.WorkflowUpdateStageCompleted,
		Args: []any{principal(c).Subject}, // who asks, for the booking's history
	}
	handle, err := s.temporal.UpdateWorkflow(ctx, ask)
	if isWorkflowGone(err) { // a waitlist offer may not have its workflow yet: then it gets it now
		if offer, startErr := worker.StartPendingOffer(ctx, s.temporal, s.store, id, s.resumeOptions()); startErr != nil {
			return workflows.BookingState{}, startErr
		} else if offer {
			handle, err = s.temporal.UpdateWorkflow(ctx, ask)
		}
	}
	state, _, err := s.outcome(ctx, id, handle, err)
	if err != nil {
		return state, err
	}
	if !slices.Contains(want, state.Booking.Status) {
		msg := "booking " + id + " is " + string(state.Booking.Status)
		if v := view(state.Booking, state.Reason); v.Reason != "" {
			msg += ": " + v.Reason
		}
		return state, newError(http.StatusConflict, "wrong_state", "%s", msg)
	}
	return state, nil
}

// outcome waits for an update's answer. When the booking's workflow has ended (or never
// started), or rejected the update as changing nothing, the database has the last word, and
// fromDB says so.
func (s *Server) outcome(ctx context.Context, id string, handle client.WorkflowUpdateHandle, err error) (
	state workflows.BookingState, fromDB bool, _ error) {
	if err == nil {
		err = handle.Get(ctx, &state)
	}
	var appErr *temporal.ApplicationError
	switch {
	case isWorkflowGone(err), errors.As(err, &appErr) && appErr.Type() == workflows.ErrTypeNoChange:
		b, dbErr := s.store.GetBooking(ctx, id)
		return workflows.BookingState{Booking: b}, true, dbErr
	case err != nil:
		return state, false, workflowError(err)
	}
	return state, false, nil
}

// isWorkflowGone reports whether the workflow does not exist or has already completed.
func isWorkflowGone(err error) bool { return worker.WorkflowGone(err) }
