package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/telemetry"
	"github.com/bookflow/bookflow/worker"
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
	ctx := c.Request().Context()
	switch {
	case errors.Is(err, payments.ErrUnsupportedEvent):
		telemetry.PaymentWebhooks.WithLabelValues(ev.Type, "unsupported").Inc()
		return c.JSON(http.StatusOK, map[string]any{"received": true, "handled": false})
	case errors.Is(err, payments.ErrUnprocessable):
		// Refusing it would only make the provider send it again for days: keep it for finance.
		s.cfg.Logger.WarnContext(c.Request().Context(), "payment webhook cannot be processed; kept for an operator", "eventId", ev.EventID,
			"type", ev.Type, "problem", err.Error())
		if err := s.store.RecordUnprocessableEvent(ctx, db.UnprocessableEvent{EventID: ev.EventID, Type: ev.Type,
			Problem: err.Error(), Payload: payload}); err != nil {
			return err // 5xx: the provider sends it again, and it is kept then
		}
		telemetry.PaymentWebhooks.WithLabelValues(ev.Type, "unprocessable").Inc()
		return c.JSON(http.StatusOK, map[string]any{"received": true, "handled": false, "problem": err.Error()})
	case err != nil:
		return err
	}
	if ev.BookingID != "" {
		aboutBooking(c, ev.BookingID)
	}
	deliver, err := s.store.RecordPaymentEvent(ctx, ev, payload)
	if err != nil {
		return err
	}
	if !deliver {
		telemetry.PaymentWebhooks.WithLabelValues(ev.Type, "duplicate").Inc()
		return c.JSON(http.StatusOK, map[string]any{"received": true, "duplicate": true})
	}
	if err := s.deliver(ctx, ev); err != nil {
		return err // 5xx: the provider redelivers, and the event is delivered then
	}
	if err := s.store.MarkEventDelivered(ctx, ev.EventID); err != nil {
		return err
	}
	telemetry.PaymentWebhooks.WithLabelValues(ev.Type, "delivered").Inc()
	return c.JSON(http.StatusOK, map[string]any{"received": true, "handled": true})
}

// deliver hands the event to the workflow that acts on it.
func (s *Server) deliver(ctx context.Context, ev domain.PaymentEvent) error {
	return worker.Deliverer{Temporal: s.temporal, Store: s.store, TaskQueue: s.cfg.TaskQueue, Offers: s.resumeOptions()}.Deliver(ctx, ev)
}

// bookingPayments shows staff (a front desk its own sites') a booking's money: what it was paid and owes back, every
// payment the provider reported for it, every refund attempt, and its ledger with the balances summed from it.
func (s *Server) bookingPayments(c echo.Context) error {
	b, err := s.staffBooking(c, domain.Principal.CanReadAt)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	pays, refunds, err := s.store.BookingMoney(ctx, b.ID)
	if err != nil {
		return err
	}
	entries, err := s.store.BookingLedger(ctx, b.ID)
	if err != nil {
		return err
	}
	balances, err := s.store.LedgerMoney(ctx, b.ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"bookingId": b.ID, "status": b.Status, "price": b.Price,
		"paid": b.Paid, "refundDue": b.RefundDue, "payments": pays, "refunds": refunds, "ledger": entries,
		"balances": balances})
}

// checkoutView is what the checkout needs to take a booking's payment, or to save the card a
// pay-at-hotel hold is guaranteed by. Kind tells them apart and is always sent: the checkout
// completes a payment with the client secret of one and saves a card with the other's.
type checkoutView struct {
	Kind          string    `json:"kind"` // checkoutPayment or checkoutCardGuarantee
	BookingID     string    `json:"bookingId"`
	PaymentID     string    `json:"paymentId"`               // empty for a card guarantee
	SetupIntentID string    `json:"setupIntentId,omitempty"` // a card guarantee's setup
	ClientSecret  string    `json:"clientSecret"`
	Amount        int64     `json:"amount"` // 0 for a card guarantee: nothing is charged
	Currency      string    `json:"currency"`
	ExpiresAt     time.Time `json:"expiresAt"`
}

// The kinds of checkout.
const (
	checkoutPayment       = "payment"
	checkoutCardGuarantee = "card_guarantee"
)

// createPayment is how a customer pays: it asks the provider for a payment of the held
// booking's price, tagged with the booking id, and answers with what the checkout completes it
// with. Asking again returns the same payment. The provider's webhook then confirms the booking.
// A hold under a pay-at-hotel plan is paid nothing now: its guest saves a card instead
// (guaranteeCard), under the same checks.
func (s *Server) createPayment(c echo.Context) error {
	b, err := s.ownBooking(c)
	if err != nil {
		return err
	}
	if b.Status.Used() && b.BalanceDue > 0 {
		return s.payBalance(c, b)
	}
	if b.PlanBalance() > 0 {
		return s.payPlanBalance(c, b)
	}
	atHotel := b.PaysAtHotel()
	switch {
	case atHotel && b.Guaranteed:
		return newError(http.StatusConflict, "wrong_state", "booking %s is already guaranteed by its guest's card", b.ID)
	case b.Status != domain.StatusHold:
		return newError(http.StatusConflict, "wrong_state", "booking %s is %s: only a booking on hold is paid", b.ID, b.Status)
	case !b.ExpiresAt.After(s.cfg.Now()):
		return newError(http.StatusConflict, "wrong_state", "the hold on booking %s has expired", b.ID)
	case !atHotel && b.Price.Total-b.Paid <= 0:
		return newError(http.StatusConflict, "wrong_state", "booking %s has no price to pay", b.ID)
	case atHotel && s.cfg.Guarantees == nil, !atHotel && s.cfg.Checkouts == nil:
		return newError(http.StatusServiceUnavailable, "payments_not_configured", "this API takes no payments: ask the operator")
	}
	if b.SupplierID != "" && b.SupplierRef == "" {
		return newError(http.StatusConflict, "supplier_pending", "the hotel's supplier has not confirmed booking %s yet: "+
			"pay once it has", b.ID)
	}
	if atHotel {
		return s.guaranteeCard(c, b)
	}
	// An amended hold's price is a new payment: the key follows the last amendment.
	list, err := s.store.Amendments(c.Request().Context(), b.ID)
	if err != nil {
		return err
	}
	var last int64
	for _, a := range list {
		if a.Status == domain.AmendmentApplied {
			last = a.ID
		}
	}
	// So is a price set by hand, and the rest of a price the desk took a deposit of.
	changes, err := s.store.PriceChangeCount(c.Request().Context(), b.ID)
	if err != nil {
		return err
	}
	key := payments.CheckoutKey(b.ID, last)
	if changes > 0 {
		key += fmt.Sprintf("/price-%d", changes)
	}
	if b.Paid > 0 {
		key += fmt.Sprintf("/rest-%d", b.Price.Total-b.Paid)
	}
	amount := b.Price.Total - b.Paid
	if b.Deposit > 0 { // a deposit plan's hold is confirmed by its deposit
		amount = b.Deposit
		key += fmt.Sprintf("/deposit-%d", amount)
	}
	return s.checkout(c, b, payments.PaymentRequest{BookingID: b.ID, Amount: amount, Currency: b.Price.Currency,
		IdempotencyKey: key}, b.ExpiresAt)
}

// payPlanBalance creates the payment of the rest of the price of a booking confirmed by its
// deposit, until its balance date.
func (s *Server) payPlanBalance(c echo.Context, b domain.Booking) error {
	switch {
	case !b.BalanceDueAt.After(s.cfg.Now()):
		return newError(http.StatusConflict, "wrong_state", "the balance of booking %s was due by %s", b.ID,
			b.BalanceDueAt.Format(time.RFC3339))
	case s.cfg.Checkouts == nil:
		return newError(http.StatusServiceUnavailable, "payments_not_configured", "this API takes no payments: ask the operator")
	}
	owed := b.PlanBalance()
	return s.checkout(c, b, payments.PaymentRequest{BookingID: b.ID, Amount: owed, Currency: b.Price.Currency,
		IdempotencyKey: fmt.Sprintf("%s/plan-balance-%d", payments.CheckoutKey(b.ID, 0), owed)}, b.BalanceDueAt)
}

// payBalance creates the payment of a confirmed booking's balance: what its pending amendment
// asks for, until the amendment's window ends.
func (s *Server) payBalance(c echo.Context, b domain.Booking) error {
	if s.cfg.Checkouts == nil {
		return newError(http.StatusServiceUnavailable, "payments_not_configured", "this API takes no payments: ask the operator")
	}
	a, err := s.store.PendingAmendment(c.Request().Context(), b.ID)
	if errors.Is(err, domain.ErrNotFound) || err == nil && !a.DueBy.After(s.cfg.Now()) {
		return newError(http.StatusConflict, "wrong_state", "booking %s has no balance to pay", b.ID)
	}
	if err != nil {
		return err
	}
	return s.checkout(c, b, payments.PaymentRequest{BookingID: b.ID, Amount: a.Difference, Currency: a.Currency,
		IdempotencyKey: payments.BalanceKey(b.ID, a.ID), AmendmentID: a.ID}, a.DueBy)
}

// checkout asks the provider for the payment and answers with what the checkout needs.
func (s *Server) checkout(c echo.Context, b domain.Booking, req payments.PaymentRequest, expires time.Time) error {
	out, err := s.cfg.Checkouts.CreatePayment(c.Request().Context(), req)
	if err != nil {
		return s.providerUnavailable(c, "create payment", b, err)
	}
	return c.JSON(http.StatusOK, checkoutView{Kind: checkoutPayment, BookingID: b.ID, PaymentID: out.PaymentID,
		ClientSecret: out.ClientSecret, Amount: req.Amount, Currency: req.Currency, ExpiresAt: expires})
}

// guaranteeCard asks the provider to save the guest's card as a pay-at-hotel hold's guarantee,
// for fees charged off session later; nothing is charged now. The setup's webhook
// (setup_intent.succeeded) then confirms the booking. One setup per booking: asking again
// returns it, until the hold expires.
func (s *Server) guaranteeCard(c echo.Context, b domain.Booking) error {
	out, err := s.cfg.Guarantees.CreateGuarantee(c.Request().Context(), payments.GuaranteeRequest{BookingID: b.ID,
		Currency: b.Price.Currency, IdempotencyKey: payments.GuaranteeKey(b.ID)})
	if err != nil {
		return s.providerUnavailable(c, "create card guarantee", b, err)
	}
	return c.JSON(http.StatusOK, checkoutView{Kind: checkoutCardGuarantee, BookingID: b.ID, SetupIntentID: out.SetupIntentID,
		ClientSecret: out.ClientSecret, Currency: b.Price.Currency, ExpiresAt: b.ExpiresAt})
}

// providerUnavailable logs what the provider answered and tells the caller it may retry.
func (s *Server) providerUnavailable(c echo.Context, what string, b domain.Booking, err error) error {
	s.cfg.Logger.ErrorContext(c.Request().Context(), what, "bookingId", b.ID, "err", err)
	return newError(http.StatusBadGateway, "payment_provider_unavailable", "the payment provider did not answer; it is safe to retry")
}

// unprocessableEvents lists the signed webhook events bookflow could not act on, newest first:
// ?limit (1-100, 50) and ?before (a receivedAt from the previous page).
func (s *Server) unprocessableEvents(c echo.Context) error {
	limit, err := pageLimit(c, 50)
	if err != nil {
		return err
	}
	var before time.Time
	if v := c.QueryParam("before"); v != "" {
		if before, err = time.Parse(time.RFC3339Nano, v); err != nil {
			return fmt.Errorf("%w: before must be a receivedAt from a previous page", domain.ErrInvalid)
		}
	}
	events, err := s.store.UnprocessableEvents(c.Request().Context(), before, limit)
	if err != nil {
		return err
	}
	out := map[string]any{"events": events}
	if len(events) == limit {
		out["next"] = events[len(events)-1].ReceivedAt.Format(time.RFC3339Nano)
	}
	return c.JSON(http.StatusOK, out)
}
