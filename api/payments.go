package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/workflows"
)

// maxWebhookBytes bounds a webhook payload; the provider's events are a few kilobytes.
const maxWebhookBytes = 256 << 10

// paymentWebhook receives the provider's signed events. Each event is recorded once (its raw
// payload kept for audit) and handed to the booking's workflow as a signal; the workflow alone
// changes the booking. A duplicate delivery answers 200 and changes nothing; an event recorded
// but not yet delivered (the signal failed) is delivered on redelivery.
func (s *Server) paymentWebhook(c echo.Context) error {
	payload, err := io.ReadAll(http.MaxBytesReader(c.Response(), c.Request().Body, maxWebhookBytes))
	if err != nil {
		return newError(http.StatusRequestEntityTooLarge, "body_too_large", "the webhook payload is too large")
	}
	if s.cfg.WebhookSecret == "" {
		return newError(http.StatusBadRequest, "webhooks_not_configured", "STRIPE_WEBHOOK_SECRET is not set")
	}
	ev, err := payments.ParseWebhook(payload, c.Request().Header.Get("Stripe-Signature"), s.cfg.WebhookSecret, s.cfg.WebhookTolerance)
	if errors.Is(err, payments.ErrUnsupportedEvent) {
		return c.JSON(http.StatusOK, map[string]any{"received": true, "handled": false})
	}
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	deliver, err := s.store.RecordPaymentEvent(ctx, ev, payload)
	if err != nil {
		return err
	}
	if !deliver {
		return c.JSON(http.StatusOK, map[string]any{"received": true, "duplicate": true})
	}
	if err := s.deliver(ctx, ev); err != nil {
		return err // 5xx: the provider redelivers, and the event is delivered then
	}
	if err := s.store.MarkEventDelivered(ctx, ev.EventID); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"received": true, "handled": true})
}

// deliver signals the event to the booking's workflow. A payment whose booking workflow has
// closed (or never existed) starts a LatePayment workflow that refunds it.
func (s *Server) deliver(ctx context.Context, ev domain.PaymentEvent) error {
	signal := workflows.SignalPayment
	if ev.IsRefund {
		signal = workflows.SignalRefund
		if err := s.store.SettleRefund(ctx, ev.RefundID, ev.Succeeded, ev.Reason); err != nil {
			return err
		}
	}
	err := s.temporal.SignalWorkflow(ctx, ev.BookingID, "", signal, ev)
	if !isWorkflowGone(err) {
		return err
	}
	latePaymentID := workflows.LatePaymentIDPrefix + ev.PaymentID
	switch {
	case ev.IsRefund:
		err = s.temporal.SignalWorkflow(ctx, latePaymentID, "", signal, ev)
		if isWorkflowGone(err) {
			return nil // recorded above; no workflow waits for it
		}
		return err
	case !ev.Succeeded:
		return nil // a failed payment for a closed booking: nothing to give back
	}
	_, err = s.temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: latePaymentID, TaskQueue: s.cfg.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
	}, workflows.LatePaymentWorkflowName, ev)
	if isWorkflowGone(err) {
		return nil // this payment was already refunded by an earlier LatePayment workflow
	}
	if err != nil {
		return fmt.Errorf("start the refund of late payment %s: %w", ev.PaymentID, err)
	}
	return nil
}

// bookingPayments shows finance a booking's money: what it was paid and owes back, every
// payment the provider reported for it, and every refund attempt.
func (s *Server) bookingPayments(c echo.Context) error {
	b, err := s.staffBooking(c, domain.Principal.CanRead)
	if err != nil {
		return err
	}
	pays, refunds, err := s.store.BookingMoney(c.Request().Context(), b.ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"bookingId": b.ID, "status": b.Status, "price": b.Price,
		"paid": b.Paid, "refundDue": b.RefundDue, "payments": pays, "refunds": refunds})
}
