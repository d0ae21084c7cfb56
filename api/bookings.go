package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// bookingView is a booking as the API shows it.
type bookingView struct {
	domain.Booking
	Nights int    `json:"nights"`
	Reason string `json:"reason,omitempty"`
}

func viewOf(b domain.Booking, reason string) bookingView {
	return bookingView{Booking: b, Nights: b.Nights(), Reason: reason}
}

// createBooking holds rooms: it validates the request, then starts the booking workflow and
// waits, in the same call, for the reservation outcome (Update-with-Start). The workflow id
// comes from the customer and the Idempotency-Key, so a retry reaches the same workflow and two
// concurrent requests with one key create one booking.
func (s *Server) createBooking(c echo.Context) error {
	key := c.Request().Header.Get("Idempotency-Key")
	if err := domain.ValidateIdempotencyKey(key); err != nil {
		return err
	}
	var req domain.HoldRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if err := req.Validate(s.cfg.Limits); err != nil {
		return err
	}
	ctx := c.Request().Context()
	if err := s.checkRoomType(ctx, req.HotelID, req.RoomTypeID, req.Stay); err != nil {
		return err
	}

	id := domain.BookingID(req.CustomerID, key)
	ctx, cancel := context.WithTimeout(ctx, s.cfg.WorkflowTimeout)
	defer cancel()
	start := s.temporal.NewWithStartWorkflowOperation(client.StartWorkflowOptions{
		ID:                       id,
		TaskQueue:                s.cfg.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		// An ended booking's id is never reused: its key stays spent.
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
	}, workflows.BookingWorkflowName, workflows.BookingInput{
		BookingID: id, IdempotencyKey: key, Request: req, HoldTTL: s.cfg.HoldTTL, LateWindow: s.cfg.LateWindow,
		MaxRefundAttempts: s.cfg.MaxRefundAttempts, RefundBackoff: s.cfg.RefundBackoff,
	})
	handle, err := s.temporal.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: start,
		UpdateOptions: client.UpdateWorkflowOptions{
			UpdateName: workflows.UpdateHold, Args: []any{req.Fingerprint()},
			WaitForStage: client.WorkflowUpdateStageCompleted,
		},
	})
	state, fromDB, err := s.outcome(ctx, id, handle, err)
	if err != nil {
		return err
	}
	if fromDB && state.Booking.Fingerprint != req.Fingerprint() {
		return domain.ErrIdempotencyMismatch
	}
	switch state.Booking.Status {
	case domain.StatusRejected:
		return newError(http.StatusConflict, "unavailable", "%s", state.Reason)
	case domain.StatusHold:
		return c.JSON(http.StatusCreated, viewOf(state.Booking, state.Reason))
	}
	return c.JSON(http.StatusOK, viewOf(state.Booking, state.Reason)) // a retry after the hold moved on
}

// checkRoomType answers 404 for an unknown hotel or room type and 400 for a stay outside the
// window on sale, judged by the hotel's own calendar.
func (s *Server) checkRoomType(ctx context.Context, hotelID, roomTypeID string, stay domain.Stay) error {
	hotel, err := s.store.GetHotel(ctx, hotelID)
	if err != nil {
		return err
	}
	ok, err := s.store.RoomTypeExists(ctx, hotelID, roomTypeID)
	if err != nil {
		return err
	}
	if !ok {
		return newError(http.StatusNotFound, "not_found", "hotel %s has no room type %s", hotelID, roomTypeID)
	}
	return stay.ValidateWindow(domain.DateOf(s.cfg.Now(), hotel.Location), s.cfg.Limits.SaleHorizonDays)
}

func (s *Server) getBooking(c echo.Context) error {
	b, err := s.store.GetBooking(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, viewOf(b, ""))
}

// confirmBooking is for staff: it confirms a hold paid outside the payment provider (at the
// desk). It answers with the outcome: 200 CONFIRMED, or 409 with the status the booking is in
// instead (for example EXPIRED).
func (s *Server) confirmBooking(c echo.Context) error {
	return s.askBooking(c, workflows.UpdateConfirm, domain.StatusConfirmed)
}

// cancelBooking cancels a booking on hold or confirmed and gives its nights back. A paid booking
// answers REFUNDING: its nights are released and the refund its hotel's policy allows is on its
// way (REFUNDED once the provider confirms).
func (s *Server) cancelBooking(c echo.Context) error {
	return s.askBooking(c, workflows.UpdateCancel, domain.StatusCancelled, domain.StatusRefunding, domain.StatusRefunded)
}

// askBooking sends an update to the booking's workflow and answers 200 when the booking ends up
// in one of the statuses wanted, 409 otherwise.
func (s *Server) askBooking(c echo.Context, update string, want ...domain.Status) error {
	id := c.Param("id")
	if !strings.HasPrefix(id, domain.BookingIDPrefix) {
		return newError(http.StatusNotFound, "not_found", "no booking %q", id)
	}
	ctx, cancel := context.WithTimeout(c.Request().Context(), s.cfg.WorkflowTimeout)
	defer cancel()
	handle, err := s.temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: id, UpdateName: update, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	state, _, err := s.outcome(ctx, id, handle, err)
	if err != nil {
		return err
	}
	if !slices.Contains(want, state.Booking.Status) {
		msg := "booking " + id + " is " + string(state.Booking.Status)
		if state.Reason != "" {
			msg += ": " + state.Reason
		}
		return newError(http.StatusConflict, "wrong_state", "%s", msg)
	}
	return c.JSON(http.StatusOK, viewOf(state.Booking, state.Reason))
}

// outcome waits for an update's answer. When the booking's workflow has ended (or never
// started) the database has the last word, and fromDB says so.
func (s *Server) outcome(ctx context.Context, id string, handle client.WorkflowUpdateHandle, err error) (
	state workflows.BookingState, fromDB bool, _ error) {
	if err == nil {
		err = handle.Get(ctx, &state)
	}
	switch {
	case isWorkflowGone(err):
		b, dbErr := s.store.GetBooking(ctx, id)
		return workflows.BookingState{Booking: b}, true, dbErr
	case err != nil:
		return state, false, workflowError(err)
	}
	return state, false, nil
}

// isWorkflowGone reports whether the workflow does not exist or has already completed.
func isWorkflowGone(err error) bool {
	var notFound *serviceerror.NotFound
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	return errors.As(err, &notFound) || errors.As(err, &started)
}

// workflowError turns a failed update into an API error: a refused request keeps its domain
// meaning; a timeout says the call may be retried.
func workflowError(err error) error {
	var appErr *temporal.ApplicationError
	var timeout *client.WorkflowUpdateServiceTimeoutOrCanceledError
	switch {
	case errors.As(err, &timeout), errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return newError(http.StatusServiceUnavailable, "pending",
			"the booking is still being processed; retry with the same Idempotency-Key")
	case errors.As(err, &appErr) && appErr.Type() == workflows.ErrTypeIdempotencyMismatch:
		return fmt.Errorf("%w: %s", domain.ErrIdempotencyMismatch, appErr.Message())
	}
	return err
}
