package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/bookflow/bookflow/auth"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
)

// runPay plays the payment provider for local development: it sends the API a signed
// payment_intent.succeeded event paying a booking's price, as Stripe would after checkout (for a
// pay-at-hotel hold, setup_intent.succeeded: the guest's card saved), then waits for the
// booking's outcome (the webhook is processed after its answer).
func runPay(ctx context.Context, cfg Config) error {
	return pay(ctx, cfg, os.Args[2:], os.Stdout)
}

// payPoll is how often pay reads the booking while it waits for the outcome.
const payPoll = 100 * time.Millisecond

func pay(ctx context.Context, cfg Config, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("pay", flag.ExitOnError)
	amount := fs.Int64("amount", 0, "amount in minor units (default: the booking's price, less what the desk took)")
	currency := fs.String("currency", "", "currency (default: the booking's)")
	fail := fs.Bool("fail", false, "send payment_intent.payment_failed instead")
	wait := fs.Duration("wait", 30*time.Second, "how long to wait for the booking's outcome (0: do not wait)")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: bookflow pay [-amount N] [-currency EUR] [-fail] [-wait 30s] <bookingId>")
		fs.PrintDefaults()
	}
	_ = fs.Parse(args)
	if fs.NArg() != 1 {
		fs.Usage()
		os.Exit(2)
	}
	bookingID := fs.Arg(0)
	base := "http://" + payAddr(cfg) + "/api/v1"

	// The provider knows the price from the checkout; here it is read as staff would.
	bearer, err := payLookupToken(cfg)
	if err != nil {
		return err
	}
	b, err := payLookup(ctx, base, bearer, bookingID)
	if err != nil {
		return err
	}
	if b.Status == domain.StatusHold && b.PaysAtHotel() && *amount == 0 && !*fail {
		return saveCard(ctx, cfg, base, bearer, b, *wait, out)
	}
	key, balance, amendment, err := payKey(ctx, base, bearer, b)
	if err != nil {
		return err
	}
	if *amount == 0 && balance > 0 {
		*amount = balance // a confirmed booking's amendment waits for its balance
	}
	deposit := int64(0) // what the desk took of a hold's price: the rest is paid
	if b.Status == domain.StatusHold {
		deposit = b.Paid
	}
	if *amount == 0 {
		if b.Price.Total-deposit <= 0 {
			return fmt.Errorf("booking %s is %s and has no price to pay", bookingID, b.Status)
		}
		*amount = b.Price.Total - deposit
	}
	if *currency == "" {
		*currency = b.Price.Currency
	}
	eventType := "payment_intent.succeeded"
	if *fail {
		eventType = "payment_intent.payment_failed"
	}
	// The payment the fake provider created for the booking's checkout
	// (POST /api/v1/bookings/{id}/payment), now completed by the guest.
	checkout, _ := payments.Fake{}.CreatePayment(ctx, payments.PaymentRequest{BookingID: bookingID, IdempotencyKey: key})
	object := payments.PaymentIntentObject(checkout.PaymentID, bookingID, *amount, *currency)
	if amendment != 0 {
		object = payments.BalanceIntentObject(checkout.PaymentID, bookingID, amendment, *amount, *currency)
	}
	status, body, err := sendEvent(ctx, cfg, base, eventType, object)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "sent %s for %d %s to booking %s: %d %s\n", eventType, *amount, *currency, bookingID, status, body)
	// Only a payment of the price during the hold moves the booking on (to CONFIRMED): a failed
	// one, one of another amount (refunded) or one past the hold (confirmed again or refunded,
	// see docs/payments-and-refunds.md) has no single outcome to wait for.
	pays := b.Status == domain.StatusHold && *amount == b.Price.Total-deposit && *currency == b.Price.Currency
	paysBalance := balance > 0 && *amount == balance && *currency == b.Price.Currency
	if status != http.StatusOK || *fail || *wait <= 0 || !pays && !paysBalance {
		return nil
	}
	return awaitOutcome(ctx, base, bearer, bookingID, *wait, out)
}

// saveCard plays the guest saving a card for a pay-at-hotel hold: the setup_intent.succeeded
// event of the setup the fake provider made for its checkout, then the booking's outcome.
func saveCard(ctx context.Context, cfg Config, base, bearer string, b domain.Booking, wait time.Duration, out io.Writer) error {
	setup, _ := payments.Fake{}.CreateGuarantee(ctx, payments.GuaranteeRequest{BookingID: b.ID,
		IdempotencyKey: payments.GuaranteeKey(b.ID)})
	object := payments.SetupIntentObject(setup.SetupIntentID, b.ID, setup.CustomerID, "pm_dev_card")
	status, body, err := sendEvent(ctx, cfg, base, "setup_intent.succeeded", object)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "sent setup_intent.succeeded (a card saved as the guarantee) to booking %s: %d %s\n", b.ID, status, body)
	if status != http.StatusOK || wait <= 0 {
		return nil
	}
	return awaitOutcome(ctx, base, bearer, b.ID, wait, out)
}

// sendEvent signs an event around object as the provider would and posts it to the webhook.
func sendEvent(ctx context.Context, cfg Config, base, eventType string, object any) (int, []byte, error) {
	now := time.Now()
	payload := payments.EventPayload(fmt.Sprintf("evt_dev_%x", now.UnixNano()), eventType, object, now)
	secret := withDevSecrets(cfg).StripeWebhookSecret
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/webhooks/payments", bytes.NewReader(payload))
	req.Header.Set("Stripe-Signature", payments.SignWebhook(payload, secret, now))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return res.StatusCode, body, nil
}

// awaitOutcome reads the booking until it is no longer HOLD and owes no balance, for up to wait.
// The webhook's 200 says the event is stored; the workflow decides next: a checkout learns the
// outcome the same way.
func awaitOutcome(ctx context.Context, base, bearer, bookingID string, wait time.Duration, out io.Writer) error {
	deadline := time.Now().Add(wait)
	for {
		now, err := payLookup(ctx, base, bearer, bookingID)
		if err != nil {
			return err
		}
		if now.Status != domain.StatusHold && now.BalanceDue == 0 {
			fmt.Fprintf(out, "booking %s is %s (paid %d %s)\n", bookingID, now.Status, now.Paid, now.Price.Currency)
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("booking %s is still %s after %s: GET it again later", bookingID, now.Status, wait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(payPoll):
		}
	}
}

// payKey is the idempotency key of the payment the booking's checkout creates now, as the API
// makes it (the fake provider derives the payment id from it), and the balance due when a
// pending amendment waits for one: a hold's price (a new payment after each amendment), or the
// balance (and the amendment that asks for it).
func payKey(ctx context.Context, base, bearer string, b domain.Booking) (key string, balance, amendment int64, _ error) {
	if b.Status != domain.StatusHold && b.BalanceDue == 0 {
		return payments.CheckoutKey(b.ID, 0), 0, 0, nil
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/staff/bookings/"+b.ID+"/amendments", nil)
	req.Header.Set("Authorization", "Bearer "+bearer)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", 0, 0, err
	}
	defer res.Body.Close()
	var list struct{ Amendments []domain.Amendment }
	if err := json.NewDecoder(res.Body).Decode(&list); err != nil || res.StatusCode != http.StatusOK {
		return "", 0, 0, fmt.Errorf("look up the amendments of booking %s: status %d", b.ID, res.StatusCode)
	}
	var last int64
	for _, a := range list.Amendments {
		switch {
		case a.Status == domain.AmendmentBalanceDue:
			return payments.BalanceKey(b.ID, a.ID), a.Difference, a.ID, nil
		case a.Status == domain.AmendmentApplied:
			last = a.ID
		}
	}
	return payments.CheckoutKey(b.ID, last), 0, 0, nil
}

// payLookup reads a booking as staff.
func payLookup(ctx context.Context, base, bearer, bookingID string) (domain.Booking, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/staff/bookings/"+bookingID, nil)
	req.Header.Set("Authorization", "Bearer "+bearer)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return domain.Booking{}, err
	}
	defer res.Body.Close()
	var b domain.Booking
	if err := json.NewDecoder(res.Body).Decode(&b); err != nil || res.StatusCode != http.StatusOK {
		return b, fmt.Errorf("look up booking %s: status %d", bookingID, res.StatusCode)
	}
	return b, nil
}

// payAddr is the API pay talks to: HTTP_ADDR when set, else where a running dev of this
// binary listens (it records its address beside the binary), else the default.
func payAddr(cfg Config) string {
	if os.Getenv("HTTP_ADDR") == "" {
		if addr, err := os.ReadFile(devAddrFile()); err == nil && len(bytes.TrimSpace(addr)) > 0 {
			return string(bytes.TrimSpace(addr))
		}
	}
	return cfg.HTTPAddr
}

// devAddrFile is where dev records the address its API listens on, for pay: beside the binary
// (scripts/dev's .data/bookflow), so each checkout's dev is found by its own binary. A variable
// for the tests.
var devAddrFile = func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return filepath.Join(filepath.Dir(exe), "dev-http-addr")
}

// payLookupToken is the credential pay reads the booking with: a short finance token signed like
// dev's, or the break-glass ADMIN_TOKEN when tokens come from an identity provider.
func payLookupToken(cfg Config) (string, error) {
	if cfg.AuthJWKSURL != "" {
		if cfg.AdminToken == "" {
			return "", fmt.Errorf("AUTH_JWKS_URL is set: pay needs ADMIN_TOKEN to read the booking")
		}
		return cfg.AdminToken, nil
	}
	cfg = withDevSecrets(cfg)
	return auth.Mint([]byte(cfg.AuthJWTSecret), domain.Principal{Subject: "bookflow-pay", Roles: []domain.Role{domain.RoleFinance}},
		time.Minute, auth.MintOptions{Issuer: cfg.AuthIssuer, Audience: cfg.AuthAudience})
}

// recordDevAddr records where dev's API listens, for pay run from another shell without
// HTTP_ADDR, and returns what removes the record when dev stops.
func recordDevAddr(addr string) func() {
	f := devAddrFile()
	if f == "" || os.WriteFile(f, []byte(addr+"\n"), 0o644) != nil {
		return func() {}
	}
	return func() { _ = os.Remove(f) }
}
