package api

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/worker"
)

// resumeBooking gives a CONFIRMED or COMPLETED booking whose workflow is gone (terminated,
// failed, lost) a workflow again, under its own id and in its current state, so it can be
// cancelled and refunded as before. The invariant checker does the same by itself for a workflow
// that was terminated or failed.
func (s *Server) resumeBooking(c echo.Context) error {
	req, b, err := s.operatorRequest(c)
	if err != nil {
		return err
	}
	switch {
	case b.Status == domain.StatusHold:
		return newError(http.StatusConflict, "wrong_state", "booking %s is HOLD: a hold whose workflow is gone is "+
			"released by the invariant checker", b.ID)
	case b.Status == domain.StatusRefunding:
		return newError(http.StatusConflict, "wrong_state", "booking %s is REFUNDING: restart its refund with "+
			"POST /api/v1/staff/bookings/%s/refund/recover", b.ID, b.ID)
	case !worker.Resumable(b.Status):
		return newError(http.StatusConflict, "wrong_state", "booking %s is %s: only a CONFIRMED or COMPLETED booking "+
			"is resumed", b.ID, b.Status)
	}
	actor := principal(c).Subject
	err = worker.ResumeBooking(c.Request().Context(), s.temporal, s.store, b, "resumed by "+actor+": "+req.Reason,
		worker.ResumeOptions{TaskQueue: s.cfg.TaskQueue, LateWindow: s.cfg.LateWindow,
			MaxRefundAttempts: s.cfg.MaxRefundAttempts, RefundBackoff: s.cfg.RefundBackoff, Now: s.cfg.Now})
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
