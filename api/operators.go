package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/bookflow/bookflow/activities"
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
			out = append(out, stuckBooking{WorkflowID: id, Reason: st.Reason, Issue: st.Issue, Booking: staffView(st.Booking, "")})
		}
	}
	return c.JSON(http.StatusOK, map[string]any{"bookings": out})
}

type operatorRequest struct {
	Reason string `json:"reason"`
}

// retryRefund and resolveRefund act on a stuck refund. The caller's subject and their reason go
// to the audit log with the outcome.
func (s *Server) retryRefund(c echo.Context) error {
	return s.operatorAction(c, workflows.UpdateRetryRefund)
}

func (s *Server) resolveRefund(c echo.Context) error {
	return s.operatorAction(c, workflows.UpdateResolveRefund)
}

// operatorRequest reads an operator's action on a booking: its reason (required) and the
// booking, which the caller may read.
func (s *Server) operatorRequest(c echo.Context) (operatorRequest, domain.Booking, error) {
	var req operatorRequest
	if err := decodeJSON(c, &req); err != nil {
		return req, domain.Booking{}, err
	}
	if req.Reason = strings.TrimSpace(req.Reason); req.Reason == "" || domain.Longer(req.Reason, 1000) {
		return req, domain.Booking{}, fmt.Errorf("%w: reason is required (at most 1000 characters)", domain.ErrInvalid)
	}
	b, err := s.staffBooking(c, domain.Principal.CanReadAt)
	return req, b, err
}

func (s *Server) operatorAction(c echo.Context, update string) error {
	req, b, err := s.operatorRequest(c)
	if err != nil {
		return err
	}
	actor := principal(c).Subject
	// An Idempotency-Key, when given, is the booking's (one key space): the same action again is
	// answered with the booking as it is, the key of another command refused. The workflow
	// claims it when it takes the action.
	key := c.Request().Header.Get("Idempotency-Key")
	if key != "" {
		if err := domain.ValidateIdempotencyKey(key); err != nil {
			return err
		}
		seen, err := s.store.MoneyCommandSeen(c.Request().Context(), db.OperatorCommand(b.ID, key,
			update == workflows.UpdateResolveRefund, actor))
		if err != nil {
			return err
		}
		if seen {
			return s.operatorActionTaken(c, b)
		}
	}
	ctx, cancel := context.WithTimeout(c.Request().Context(), s.cfg.WorkflowTimeout)
	defer cancel()
	// The refund runs in the booking's workflow, or in a recovery's, a StaffRefund's or a late
	// payment's, and more than one of them may be running: a goodwill refund given while the
	// booking's workflow finishes a refund of its own runs beside it in the StaffRefund workflow.
	// A workflow whose refund is not stuck passes the action on to the next; not_stuck is the
	// answer only if none has a stuck refund.
	var st workflows.BookingState
	var notStuck error
	err = errNoSaga
	for _, id := range refundWorkflowIDs(b) {
		var handle client.WorkflowUpdateHandle
		handle, err = s.temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
			WorkflowID: id, UpdateName: update, WaitForStage: client.WorkflowUpdateStageCompleted,
			Args: []any{workflows.OperatorAction{Actor: actor, Reason: req.Reason, Key: key}},
		})
		if err == nil {
			err = handle.Get(ctx, &st)
		}
		if isNotStuck(err) {
			if notStuck == nil {
				notStuck = err
			}
			continue
		}
		if !isWorkflowGone(err) {
			break
		}
	}
	if notStuck != nil && (isWorkflowGone(err) || errors.Is(err, errNoSaga) || isNotStuck(err)) {
		err = notStuck
	}
	var appErr *temporal.ApplicationError
	switch {
	case isWorkflowGone(err), errors.Is(err, errNoSaga):
		return newError(http.StatusNotFound, "not_found", "no running workflow refunds booking %s", b.ID)
	case errors.As(err, &appErr) && appErr.Type() == workflows.ErrTypeNotStuck:
		return newError(http.StatusConflict, "not_stuck", "%s", appErr.Message())
	case errors.As(err, &appErr) && appErr.Type() == workflows.ErrTypeOperatorBusy:
		return newError(http.StatusConflict, "operator_action_in_progress", "%s", appErr.Message())
	case errors.As(err, &appErr) && appErr.Type() == workflows.ErrTypeRefundInFlight:
		return newError(http.StatusConflict, "refund_in_flight", "%s", appErr.Message())
	case errors.As(err, &appErr) && appErr.Type() == activities.ErrTypeIdempotencyMismatch:
		return fmt.Errorf("%w: %s", domain.ErrIdempotencyMismatch, appErr.Message())
	case errors.As(err, &appErr) && appErr.Type() == workflows.ErrTypeActionTaken:
		return s.operatorActionTaken(c, b) // sent again as the first was being taken
	case err != nil:
		return workflowError(err)
	}
	if err := s.audit(c, update, b.ID, req.Reason, map[string]any{"statusAfter": st.Booking.Status, "stuckAfter": st.Stuck}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"booking": staffView(st.Booking, st.Reason), "stuck": st.Stuck})
}

// audit writes a staff action to the audit log under the caller's subject. The action has
// already happened, so a failure to record it is reported as such.
func (s *Server) audit(c echo.Context, action, bookingID, reason string, details map[string]any) error {
	// The action is done: record it even if the client has gone.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), 5*time.Second)
	defer cancel()
	err := s.store.Audit(ctx, db.AuditEntry{Actor: principal(c).Subject, Action: action, BookingID: bookingID,
		Reason: reason, Details: details})
	if err != nil {
		return fmt.Errorf("the %s was carried out but could not be written to the audit log: %w", action, err)
	}
	return nil
}

// bookingAudit returns the staff actions on one booking, oldest first.
func (s *Server) bookingAudit(c echo.Context) error {
	b, err := s.staffBooking(c, domain.Principal.CanReadAt)
	if err != nil {
		return err
	}
	entries, err := s.store.AuditLog(c.Request().Context(), b.ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"entries": entries})
}

// auditLog returns the audit log, newest first, a page at a time: ?limit (1-100, 50) and
// ?before (the next value of the previous page).
func (s *Server) auditLog(c echo.Context) error {
	limit, err := pageLimit(c, 50)
	if err != nil {
		return err
	}
	var before int64
	if v := c.QueryParam("before"); v != "" {
		if before, err = strconv.ParseInt(v, 10, 64); err != nil || before < 1 {
			return fmt.Errorf("%w: before must be an entry id from a previous page", domain.ErrInvalid)
		}
	}
	entries, err := s.store.RecentAudit(c.Request().Context(), before, limit)
	if err != nil {
		return err
	}
	out := map[string]any{"entries": entries}
	if len(entries) == limit {
		out["next"] = strconv.FormatInt(entries[len(entries)-1].ID, 10)
	}
	return c.JSON(http.StatusOK, out)
}

// latestCheck answers the invariant checker's last report: what it found and what it repaired.
func (s *Server) latestCheck(c echo.Context) error {
	report, err := s.store.LatestCheck(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, report)
}

var errNoSaga = errors.New("no workflow refunds this booking")

// isNotStuck is a workflow's refusal of an operator action: it has no refund waiting for one.
func isNotStuck(err error) bool {
	var appErr *temporal.ApplicationError
	return errors.As(err, &appErr) && appErr.Type() == workflows.ErrTypeNotStuck
}

// refundWorkflowIDs are the workflows a booking's refund may run in: its own, a recovery's, the

// operatorActionTaken answers an operator's action sent again under the key of the same action
// taken before: nothing is done or audited again; the booking as it is, stuck when a workflow
// refunding it waits for an operator now, and replayed.
func (s *Server) operatorActionTaken(c echo.Context, b domain.Booking) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), s.cfg.WorkflowTimeout)
	defer cancel()
	stuck, reason := false, ""
	for _, id := range refundWorkflowIDs(b) {
		v, err := s.temporal.QueryWorkflow(ctx, id, "", workflows.QueryState)
		var st workflows.BookingState
		if err != nil || v.Get(&st) != nil {
			continue // gone, or not this booking's refund
		}
		if st.Stuck || reason == "" {
			reason = st.Reason
		}
		stuck = stuck || st.Stuck
	}
	return c.JSON(http.StatusOK, map[string]any{"booking": staffView(b, reason), "stuck": stuck, "replayed": true})
}

// staff refunds' given after it closed or while it finishes its own, and a late payment's.
func refundWorkflowIDs(b domain.Booking) []string {
	ids := []string{b.ID, domain.RefundRecoveryID(b.ID), domain.StaffRefundWorkflowID(b.ID)}
	if b.PaymentID != "" {
		ids = append(ids, workflows.LatePaymentIDPrefix+b.PaymentID)
	}
	return ids
}

// recoverRefund restarts the refund of a REFUNDING booking no workflow refunds any more (its own
// workflow was terminated, say): a RecoverRefund workflow goes on from the lost saga's last
// attempt, never paying one twice. The invariant checker does this by itself unless that attempt
// had failed; then an operator decides, with this or by settling it by hand.
func (s *Server) recoverRefund(c echo.Context) error {
	req, b, err := s.operatorRequest(c)
	if err != nil {
		return err
	}
	if b.Status != domain.StatusRefunding {
		return newError(http.StatusConflict, "wrong_state", "booking %s is %s, not REFUNDING", b.ID, b.Status)
	}
	ctx := c.Request().Context()
	for _, id := range refundWorkflowIDs(b) {
		d, err := s.temporal.DescribeWorkflow(ctx, id, "")
		if err == nil && d.Status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			return newError(http.StatusConflict, "saga_running", "workflow %s is refunding booking %s: act on it instead", id, b.ID)
		}
		if err != nil && !isWorkflowGone(err) {
			return err
		}
	}
	if _, err := s.temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: domain.RefundRecoveryID(b.ID), TaskQueue: s.cfg.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
	}, workflows.RecoverRefundWorkflowName, b.ID); err != nil {
		return err
	}
	if err := s.audit(c, "recover-refund", b.ID, req.Reason, map[string]any{"workflowId": domain.RefundRecoveryID(b.ID)}); err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]any{"bookingId": b.ID, "workflowId": domain.RefundRecoveryID(b.ID)})
}
