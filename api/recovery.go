package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/worker"
)

// resumeBooking gives a CONFIRMED or COMPLETED booking whose workflow is gone (terminated,
// failed, lost) a workflow again, under its own id and in its current state, so it can be
// cancelled and refunded as before; for a booking in another status, the staff refunds its lost
// workflow had not given back are given (giveStaffRefunds). The invariant checker does the same
// by itself for a workflow that was terminated or failed.
func (s *Server) resumeBooking(c echo.Context) error {
	req, b, err := s.operatorRequest(c)
	if err != nil {
		return err
	}
	if !worker.Resumable(b.Status) {
		return s.giveStaffRefunds(c, req.Reason, b)
	}
	actor := principal(c).Subject
	err = worker.ResumeBooking(c.Request().Context(), s.temporal, s.store, b, "resumed by "+actor+": "+req.Reason, s.resumeOptions())
	if errors.Is(err, worker.ErrWorkflowRunning) {
		return newError(http.StatusConflict, "workflow_running", "the workflow of booking %s is running: act on it instead", b.ID)
	}
	if err != nil {
		return err
	}
	if err := s.audit(c, "resume-booking", b.ID, req.Reason, map[string]any{"status": b.Status, "workflowId": b.ID}); err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]any{"bookingId": b.ID, "workflowId": b.ID, "status": b.Status})
}

// giveStaffRefunds answers a resume of a booking its own workflow no longer looks after (a
// no-show, say): the staff refunds its lost workflow had not given back are given by a run of
// its StaffRefund workflow; with none owed the booking has nothing to resume.
func (s *Server) giveStaffRefunds(c echo.Context, reason string, b domain.Booking) error {
	id := domain.StaffRefundWorkflowID(b.ID)
	err := worker.GiveStaffRefunds(c.Request().Context(), s.temporal, s.store, b,
		"staff refunds given back by "+principal(c).Subject+": "+reason, s.resumeOptions())
	switch {
	case errors.Is(err, worker.ErrNothingOwed):
		return notResumable(b)
	case errors.Is(err, worker.ErrWorkflowRunning):
		return newError(http.StatusConflict, "workflow_running", "a workflow of booking %s is running: it gives its refunds", b.ID)
	case err != nil:
		return err
	}
	if err := s.audit(c, "give-staff-refunds", b.ID, reason, map[string]any{"status": b.Status, "workflowId": id}); err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]any{"bookingId": b.ID, "workflowId": id, "status": b.Status})
}

// notResumable refuses to resume booking b, which its workflow no longer looks after, saying what
// to do instead.
func notResumable(b domain.Booking) error {
	switch {
	case b.Status == domain.StatusHold:
		return newError(http.StatusConflict, "wrong_state", "booking %s is HOLD: a hold whose workflow is gone is "+
			"released by the invariant checker", b.ID)
	case b.Status == domain.StatusRefunding:
		return newError(http.StatusConflict, "wrong_state", "booking %s is REFUNDING: restart its refund with "+
			"POST /api/v1/staff/bookings/%s/refund/recover", b.ID, b.ID)
	}
	return newError(http.StatusConflict, "wrong_state", "booking %s is %s: only a CONFIRMED or COMPLETED booking "+
		"is resumed, and no staff refund of it is owed", b.ID, b.Status)
}

// resumeOptions are the settings of a workflow an operator resumes.
func (s *Server) resumeOptions() worker.ResumeOptions {
	return worker.ResumeOptions{TaskQueue: s.cfg.TaskQueue, LateWindow: s.cfg.LateWindow,
		MaxRefundAttempts: s.cfg.MaxRefundAttempts, RefundBackoff: s.cfg.RefundBackoff, Now: s.cfg.Now,
		BookingIDKey: s.cfg.BookingIDKey}
}

// tellSupplier tells the supplier of a booking that is off, again, that it is off: its workflow
// could not (the booking is flagged supplier_not_told). It waits for the supplier's answer as long
// as the API waits for a workflow: 200 told, 502 when the supplier could not be told, 202 while
// the workflow still tries (for up to two minutes).
func (s *Server) tellSupplier(c echo.Context) error {
	req, b, err := s.operatorRequest(c)
	if err != nil {
		return err
	}
	switch {
	case b.SupplierID == "":
		return newError(http.StatusConflict, "no_supplier", "booking %s has no supplier", b.ID)
	case b.Status.HoldsInventory():
		return newError(http.StatusConflict, "wrong_state", "booking %s is %s: only a booking that is off is "+
			"cancelled with its supplier", b.ID, b.Status)
	}
	ctx, cancel := context.WithTimeout(c.Request().Context(), s.cfg.WorkflowTimeout)
	defer cancel()
	run, err := worker.StartTellSupplier(ctx, s.temporal, s.cfg.TaskQueue, b.ID)
	if err != nil {
		return err
	}
	if err := s.audit(c, "tell-supplier", b.ID, req.Reason, map[string]any{"workflowId": run.GetID()}); err != nil {
		return err
	}
	answer := map[string]any{"bookingId": b.ID, "workflowId": run.GetID()}
	err = run.Get(ctx, nil)
	switch {
	case err != nil && ctx.Err() != nil:
		answer["told"] = false
		return c.JSON(http.StatusAccepted, answer)
	case err != nil:
		return newError(http.StatusBadGateway, "supplier_not_told", "the supplier of booking %s could not be told: %v", b.ID, err)
	}
	answer["told"] = true
	return c.JSON(http.StatusOK, answer)
}
