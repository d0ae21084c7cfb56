package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// stuckBooking is one booking waiting for an operator.
type stuckBooking struct {
	WorkflowID string      `json:"workflowId"`
	Reason     string      `json:"reason"`
	Issue      string      `json:"issue,omitempty"`
	Booking    bookingView `json:"booking"`
}

// listStuck lists the bookings whose refund waits for an operator, found the way an operator
// finds them in the Temporal UI: BookingStatus = "PAYMENT_STUCK".
func (s *Server) listStuck(c echo.Context) error {
	ctx := c.Request().Context()
	var executions []*workflowpb.WorkflowExecutionInfo
	req := &workflowservice.ListWorkflowExecutionsRequest{
		Query: fmt.Sprintf(`BookingStatus = %q AND ExecutionStatus = "Running"`, workflows.StatusPaymentStuck)}
	for {
		res, err := s.temporal.ListWorkflow(ctx, req)
		if err != nil {
			return err
		}
		executions = append(executions, res.Executions...)
		if req.NextPageToken = res.NextPageToken; len(req.NextPageToken) == 0 {
			break
		}
	}
	out := []stuckBooking{}
	for _, ex := range executions {
		id := ex.GetExecution().GetWorkflowId()
		v, err := s.temporal.QueryWorkflow(ctx, id, "", workflows.QueryState)
		if err != nil {
			continue // closed since the listing
		}
		var st workflows.BookingState
		if err := v.Get(&st); err != nil {
			return err
		}
		if st.Stuck {
			out = append(out, stuckBooking{WorkflowID: id, Reason: st.Reason, Issue: st.Issue, Booking: viewOf(st.Booking, "")})
		}
	}
	return c.JSON(http.StatusOK, map[string]any{"bookings": out})
}

type operatorRequest struct {
	Reason string `json:"reason"`
}

// retryRefund and resolveRefund act on a stuck refund. The operator names themself in the
// X-Actor header and gives a reason; both go to the audit log with the outcome.
func (s *Server) retryRefund(c echo.Context) error {
	return s.operatorAction(c, workflows.UpdateRetryRefund)
}

func (s *Server) resolveRefund(c echo.Context) error {
	return s.operatorAction(c, workflows.UpdateResolveRefund)
}

func (s *Server) operatorAction(c echo.Context, update string) error {
	actor := strings.TrimSpace(c.Request().Header.Get("X-Actor"))
	if actor == "" || len(actor) > 100 {
		return fmt.Errorf("%w: the X-Actor header must name the operator (1-100 characters)", domain.ErrInvalid)
	}
	var req operatorRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.Reason = strings.TrimSpace(req.Reason); req.Reason == "" || len(req.Reason) > 1000 {
		return fmt.Errorf("%w: reason is required (at most 1000 characters)", domain.ErrInvalid)
	}
	id := c.Param("id")
	ctx, cancel := context.WithTimeout(c.Request().Context(), s.cfg.WorkflowTimeout)
	defer cancel()
	handle, err := s.temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: id, UpdateName: update, WaitForStage: client.WorkflowUpdateStageCompleted,
		Args: []any{workflows.OperatorAction{Actor: actor, Reason: req.Reason}},
	})
	var st workflows.BookingState
	if err == nil {
		err = handle.Get(ctx, &st)
	}
	var appErr *temporal.ApplicationError
	switch {
	case isWorkflowGone(err):
		return newError(http.StatusNotFound, "not_found", "no running booking workflow %s", id)
	case errors.As(err, &appErr) && appErr.Type() == workflows.ErrTypeNotStuck:
		return newError(http.StatusConflict, "not_stuck", "%s", appErr.Message())
	case err != nil:
		return workflowError(err)
	}
	if err := s.store.Audit(c.Request().Context(), db.AuditEntry{Actor: actor, Action: update, BookingID: id,
		Reason: req.Reason, Details: map[string]any{"statusAfter": st.Booking.Status, "stuckAfter": st.Stuck}}); err != nil {
		return fmt.Errorf("the %s was carried out but could not be written to the audit log: %w", update, err)
	}
	return c.JSON(http.StatusOK, map[string]any{"booking": viewOf(st.Booking, st.Reason), "stuck": st.Stuck})
}

// auditLog returns a booking's operator actions.
func (s *Server) auditLog(c echo.Context) error {
	entries, err := s.store.AuditLog(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"entries": entries})
}
