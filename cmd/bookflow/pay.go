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
	"time"

	"github.com/bookflow/bookflow/auth"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
)

// runPay plays the payment provider for local development: it sends the API a signed
// payment_intent.succeeded event paying a booking's price, as Stripe would after checkout.
func runPay(ctx context.Context, cfg Config) error {
	fs := flag.NewFlagSet("pay", flag.ExitOnError)
	amount := fs.Int64("amount", 0, "amount in minor units (default: the booking's price)")
	currency := fs.String("currency", "", "currency (default: the booking's)")
	fail := fs.Bool("fail", false, "send payment_intent.payment_failed instead")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: bookflow pay [-amount N] [-currency EUR] [-fail] <bookingId>")
		fs.PrintDefaults()
	}
	_ = fs.Parse(os.Args[2:])
	if fs.NArg() != 1 {
		fs.Usage()
		os.Exit(2)
	}
	bookingID := fs.Arg(0)
	base := "http://" + cfg.HTTPAddr + "/api/v1"

	// The provider knows the price from the checkout; here it is read as staff would.
	bearer, err := payLookupToken(cfg)
	if err != nil {
		return err
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/staff/bookings/"+bookingID, nil)
	req.Header.Set("Authorization", "Bearer "+bearer)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	var b domain.Booking
	err = json.NewDecoder(res.Body).Decode(&b)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK {
		return fmt.Errorf("look up booking %s: status %d", bookingID, res.StatusCode)
	}
	if *amount == 0 {
		if b.Price.Total == 0 {
			return fmt.Errorf("booking %s is %s and has no price to pay", bookingID, b.Status)
		}
		*amount = b.Price.Total
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
	checkout, _ := payments.Fake{}.CreatePayment(ctx, payments.PaymentRequest{BookingID: bookingID, IdempotencyKey: bookingID + "/payment"})
	now := time.Now()
	payload := payments.EventPayload(fmt.Sprintf("evt_dev_%x", now.UnixNano()), eventType,
		payments.PaymentIntentObject(checkout.PaymentID, bookingID, *amount, *currency), now)
	secret := withDevSecrets(cfg).StripeWebhookSecret
	req, _ = http.NewRequestWithContext(ctx, http.MethodPost, base+"/webhooks/payments", bytes.NewReader(payload))
	req.Header.Set("Stripe-Signature", payments.SignWebhook(payload, secret, now))
	req.Header.Set("Content-Type", "application/json")
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	fmt.Printf("sent %s for %d %s to booking %s: %d %s\n", eventType, *amount, *currency, bookingID, res.StatusCode, body)
	return nil
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
