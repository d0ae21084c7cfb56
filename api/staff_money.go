package api

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// Money staff steer: desk payments, prices set by hand, refunds, and refunds finance settled
// outside bookflow. Every one is audited with who, why, and the money before and after.

// deskPaymentBody is a payment the front desk took.
type deskPaymentBody struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	Method   string `json:"method"`
	Note     string `json:"note"`
}

// takeDeskPayment records money the desk took for a held or confirmed booking of its own site:
// the hold is CONFIRMED once its payments cover its price. A booking sold from a supplier's
// stock takes none (its supplier prices it; the store refuses it too).
func (s *Server) takeDeskPayment(c echo.Context) error {
	key, b, err := s.moneyRequest(c, domain.Principal.CanBookAt)
	if err != nil {
		return err
	}
	if err := paidThroughTheCheckout(b); err != nil {
		return err
	}
	var body deskPaymentBody
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	switch {
	case !slices.Contains(domain.DeskMethods, body.Method):
		return newError(http.StatusBadRequest, "invalid_request", "method is one of cash, card_terminal, bank_transfer, other")
	case body.Method == domain.MethodOther && body.Note == "":
		return newError(http.StatusBadRequest, "invalid_request", "a payment by another method has a note saying what it was")
	case domain.Longer(body.Note, 500):
		return newError(http.StatusBadRequest, "invalid_request", "note is at most 500 characters")
	}
	return s.askMoney(c, b, "desk-payment", workflows.MoneyRequest{Kind: workflows.MoneyDeskPayment, Key: key,
		Amount: body.Amount, Currency: body.Currency, Method: body.Method, Note: body.Note},
		map[string]any{"method": body.Method, "amount": body.Amount, "currency": body.Currency, "note": body.Note, "key": key})
}

// priceBody is a price set by hand.
type priceBody struct {
	Total    int64  `json:"total"`
	Currency string `json:"currency"`
	Reason   string `json:"reason"`
}

// changePrice sets the price of a held booking nothing was paid for, by the front desk of its
// site or an admin.
func (s *Server) changePrice(c echo.Context) error {
	b, err := s.staffBooking(c, domain.Principal.CanBookAt)
	if err != nil {
		return err
	}
	var body priceBody
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if body.Total < 0 {
		return newError(http.StatusBadRequest, "invalid_request", "total is never below zero")
	}
	return s.askMoney(c, b, body.Reason, workflows.MoneyRequest{Kind: workflows.MoneyPrice, Amount: body.Total,
		Currency: body.Currency, Reason: body.Reason}, map[string]any{"totalBefore": b.Price.Total, "currency": body.Currency})
}

// refundBody is a refund staff give.
type refundBody struct {
	Amount       int64  `json:"amount"`
	Currency     string `json:"currency"`
	Reason       string `json:"reason"`
	ReleaseUnits bool   `json:"releaseUnits"`
	Reverses     string `json:"reverses"`
	// Method is how it is given back: left out as it was paid, or cash, card_terminal (at the
	// desk), bank_transfer (made by whoever asks), provider (only to the card).
	Method string `json:"method"`
}

// refundBooking gives part or all of what a booking keeps back: keeping its units (a goodwill
// refund, on a confirmed, checked-in or no-show booking), or giving them back (a cancel with
// this refund instead of the policy's). Front desk for its sites, finance and admin anywhere.
func (s *Server) refundBooking(c echo.Context) error {
	key, b, err := s.moneyRequest(c, domain.Principal.CanReadAt)
	if err != nil {
		return err
	}
	var body refundBody
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	switch {
	case body.Reverses != "" && body.ReleaseUnits:
		return newError(http.StatusBadRequest, "invalid_request", "a reversal keeps the booking's units: leave releaseUnits out")
	case body.Method != "" && !slices.Contains(db.RefundMethods, body.Method):
		return newError(http.StatusBadRequest, "invalid_request", "method is one of cash, card_terminal, bank_transfer, provider (or left out: as it was paid)")
	case body.Method != "" && body.Reverses != "":
		return newError(http.StatusBadRequest, "invalid_request", "a reversal goes back by the payment's own method: leave method out")
	case body.Method != "" && body.ReleaseUnits:
		return newError(http.StatusBadRequest, "invalid_request", "a cancel's refund goes back as it was paid: leave method out")
	}
	// Finance is not at the booking's desk: what goes back there waits for the desk to hand it over.
	// A reversal moves no money (the payment was entered by mistake): it is recorded at once.
	away := body.Reverses == "" && !principal(c).CanBookAt(b)
	return s.askMoney(c, b, body.Reason, workflows.MoneyRequest{Kind: workflows.MoneyRefund, Key: key, Amount: body.Amount,
		Currency: body.Currency, Reason: body.Reason, ReleaseUnits: body.ReleaseUnits, Reverses: body.Reverses, Method: body.Method,
		AwayFromDesk: away},
		map[string]any{"amount": body.Amount, "currency": body.Currency, "releaseUnits": body.ReleaseUnits,
			"reverses": body.Reverses, "method": body.Method, "key": key})
}

// manualRefundBody is a refund finance made outside bookflow.
type manualRefundBody struct {
	Amount    int64  `json:"amount"`
	Currency  string `json:"currency"`
	Method    string `json:"method"`
	Reference string `json:"reference"`
	Reason    string `json:"reason"`
}

// recordManualRefund records a refund finance made outside bookflow (a bank transfer, say)
// against a payment no booking keeps: the invariant checker counts it.
func (s *Server) recordManualRefund(c echo.Context) error {
	key := c.Request().Header.Get("Idempotency-Key")
	if err := domain.ValidateIdempotencyKey(key); err != nil {
		return err
	}
	var body manualRefundBody
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if domain.Longer(body.Reference, 200) || domain.Longer(body.Reason, 500) {
		return newError(http.StatusBadRequest, "invalid_request", "reference is at most 200 characters, reason 500")
	}
	rec, err := s.store.RecordManualRefund(c.Request().Context(), db.ManualRefund{PaymentID: c.Param("paymentId"), Key: key,
		Amount: body.Amount, Currency: body.Currency, Method: body.Method, Reference: body.Reference, Reason: body.Reason,
		Actor: principal(c).Subject})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, rec)
}

// moneyRequest reads the Idempotency-Key of a money request and the booking in its path, which
// the staff member must be allowed to act on (may).
func (s *Server) moneyRequest(c echo.Context, may func(domain.Principal, domain.Booking) bool) (string, domain.Booking, error) {
	key := c.Request().Header.Get("Idempotency-Key")
	if err := domain.ValidateIdempotencyKey(key); err != nil {
		return "", domain.Booking{}, err
	}
	b, err := s.staffBooking(c, may)
	return key, b, err
}

// askMoney sends a money request to the booking's workflow, audits what it did (the booking's
// money before and after) and answers with the booking as it left it.
func (s *Server) askMoney(c echo.Context, b domain.Booking, reason string, req workflows.MoneyRequest, details map[string]any) error {
	if domain.Longer(req.Reason, 500) {
		return newError(http.StatusBadRequest, "invalid_request", "reason is at most 500 characters")
	}
	ctx := c.Request().Context()
	before, err := s.store.BookingMoneySummary(ctx, b)
	if err != nil {
		return err
	}
	req.Actor = principal(c).Subject
	state, err := s.sendMoney(c, b.ID, req)
	if errors.Is(err, errWorkflowClosed) || errors.Is(err, errWorkflowEnding) {
		state, err = s.moneyAfterwards(c, b.ID, req, err)
	}
	if err != nil {
		return err
	}
	after, err := s.store.BookingMoneySummary(ctx, state.Booking)
	if err != nil {
		return err
	}
	details["before"], details["after"] = before, after
	details["statusBefore"], details["statusAfter"] = b.Status, state.Booking.Status
	if req.Kind == workflows.MoneyPrice {
		details["totalAfter"] = state.Booking.Price.Total
	}
	if err := s.audit(c, "money-"+req.Kind, b.ID, reason, details); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, moneyView{bookingView: staffView(state.Booking, state.Reason), Money: after})
}

// moneyView is a booking with its money summed.
type moneyView struct {
	bookingView
	Money db.MoneySummary `json:"money"`
}

// sendMoney sends the money update and maps its refusals to answers.
func (s *Server) sendMoney(c echo.Context, id string, req workflows.MoneyRequest) (workflows.BookingState, error) {
	var state workflows.BookingState
	err := s.update(c, id, workflows.UpdateMoney, req, &state)
	return state, moneyRefusal(id, err)
}

// moneyRefusal maps a money update's refusal to its answer.
func moneyRefusal(id string, err error) error {
	var appErr *temporal.ApplicationError
	switch {
	case err == nil:
		return nil
	case isWorkflowGone(err):
		return errWorkflowClosed
	case errors.As(err, &appErr):
		switch appErr.Type() {
		case activities.ErrTypeIdempotencyMismatch:
			return fmt.Errorf("%w: %s", domain.ErrIdempotencyMismatch, appErr.Message())
		case activities.ErrTypeInvalid:
			return newError(http.StatusBadRequest, "invalid_request", "%s", appErr.Message())
		case activities.ErrTypeConflict, activities.ErrTypeNotAmendable, workflows.ErrTypeNoChange:
			answer := newError(http.StatusConflict, "wrong_state", "booking %s: %s", id, appErr.Message())
			if appErr.Type() == activities.ErrTypeNotAmendable && appErr.Message() == workflows.RefusalEnded {
				return fmt.Errorf("%w: %w", errWorkflowEnding, answer)
			}
			return answer
		}
	}
	return workflowError(err)
}

// errWorkflowClosed answers a money request for a booking whose workflow has closed (only a
// refund that keeps its units is still given, see refundAfterwards).
var errWorkflowClosed = newError(http.StatusConflict, "wrong_state", "the booking's workflow has closed: only a refund "+
	"that keeps its units is given now")

// errWorkflowEnding marks the refusal of a booking's workflow whose late window has passed while
// a refund saga of it still runs (a refund pending at the provider, or stuck for an operator): it
// takes no more money requests, and closes once its sagas end. A refund that keeps the units is
// then given through the StaffRefund workflow, as once it has closed; anything else is refused
// as before.
var errWorkflowEnding = errors.New("the booking's workflow is ending")

// moneyAfterwards answers a money request the booking's workflow no longer takes (refused: it has
// closed, or is ending). A refund that keeps the units is given through the StaffRefund
// workflow, which asks the database about its key as the booking's does; for anything else the
// database answers a key it holds (the same request again: the booking as it is; another
// command's key: 422), and the request is refused otherwise.
func (s *Server) moneyAfterwards(c echo.Context, id string, req workflows.MoneyRequest, refused error) (
	workflows.BookingState, error) {
	if req.Kind == workflows.MoneyRefund && !req.ReleaseUnits && req.Reverses == "" {
		// A guest who complains after the stay, say: the booking's workflow has closed, or, past
		// its late window, only finishes the refunds it runs and takes no more.
		return s.refundAfterwards(c, id, req)
	}
	if req.Key == "" {
		return workflows.BookingState{}, refused // a price: no key
	}
	ctx := c.Request().Context()
	if seen, err := s.store.MoneyCommandSeen(ctx, req.Command(id)); err != nil || !seen {
		return workflows.BookingState{}, cmp.Or(err, refused)
	}
	b, err := s.store.GetBooking(ctx, id)
	return workflows.BookingState{Booking: b}, err
}

// refundAfterwards gives a refund of a booking whose own workflow has closed (or is ending) through
// the booking's StaffRefund workflow, started with the update (or reached while it runs).
func (s *Server) refundAfterwards(c echo.Context, id string, req workflows.MoneyRequest) (workflows.BookingState, error) {
	ctx, cancel := context.WithTimeout(c.Request().Context(), s.cfg.WorkflowTimeout)
	defer cancel()
	start := s.temporal.NewWithStartWorkflowOperation(client.StartWorkflowOptions{
		ID: domain.StaffRefundWorkflowID(id), TaskQueue: s.cfg.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
	}, workflows.StaffRefundWorkflowName, id)
	var state workflows.BookingState
	handle, err := s.temporal.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: start,
		UpdateOptions: client.UpdateWorkflowOptions{UpdateName: workflows.UpdateMoney, Args: []any{req},
			WaitForStage: client.WorkflowUpdateStageCompleted},
	})
	if err == nil {
		err = handle.Get(ctx, &state)
	}
	return state, moneyRefusal(id, err)
}

// paidThroughTheCheckout refuses the desk's money for a booking sold from a supplier's stock:
// neither a payment taken at the desk nor a confirmation on the promise of one.
func paidThroughTheCheckout(b domain.Booking) error {
	if b.SupplierID == "" {
		return nil
	}
	return newError(http.StatusConflict, "supplier_booking", "booking %s was sold from supplier %s's stock: %s", b.ID,
		b.SupplierID, domain.SupplierBookingNoDeskPayment)
}
