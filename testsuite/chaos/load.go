package chaos

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/bookflow/bookflow/auth"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
)

// ledger is what the load's clients were told and did: the bookings they were given (201), the
// payments they made and the provider's webhooks the API acknowledged.
type ledger struct {
	mu       sync.Mutex
	booked   map[string]int64 // booking id -> price
	paid     map[string]paid  // payment id -> what it paid
	attempts int
}

type paid struct {
	bookingID string
	amount    int64
	acked     bool // the API answered the webhook 200
}

func newLedger() *ledger { return &ledger{booked: map[string]int64{}, paid: map[string]paid{}} }

// load is the checkout front ends and the payment provider's webhooks, against the API.
type load struct {
	s      *system
	l      *ledger
	hotels []string
	stay   domain.Stay
	http   *http.Client
	run    int
}

// drive runs clients until ctx ends: each holds rooms, then pays, pays twice, pays late,
// cancels, or lets the hold expire. Webhooks are sent again until the API acknowledges them,
// as a provider does, until settle ends.
func (ld *load) drive(ctx, settle context.Context, clients int) {
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				ld.one(ctx, settle, fmt.Sprintf("r%d-c%d", ld.run, c), n)
			}
		})
	}
	wg.Wait()
}

func (ld *load) one(ctx, settle context.Context, customer string, n int) {
	token, _ := auth.Mint(ld.s.jwtSecret, domain.Principal{Subject: customer, Roles: []domain.Role{domain.RoleCustomer}},
		time.Hour, auth.MintOptions{})
	body := map[string]any{"hotelId": ld.hotels[rand.IntN(len(ld.hotels))], "roomTypeId": "double",
		"checkIn": ld.stay.CheckIn, "checkOut": ld.stay.CheckOut, "quantity": 1}
	ld.l.count()
	var hold map[string]any
	for try := 0; try < 3 && ctx.Err() == nil; try++ { // a 503 or no answer: the same key again
		status, res := ld.call(ctx, http.MethodPost, "/api/v1/bookings", token, fmt.Sprintf("k%d", n), body)
		if status == http.StatusCreated {
			hold = res
			break
		}
		if status != 0 && status != http.StatusServiceUnavailable && status < 500 {
			return // sold out, or the like
		}
		time.Sleep(300 * time.Millisecond)
	}
	if hold == nil {
		return
	}
	id := hold["id"].(string)
	price := int64(hold["price"].(map[string]any)["total"].(float64))
	ld.l.book(id, price)

	switch r := rand.Float64(); {
	case r < 0.15: // the guest gives up
		ld.call(ctx, http.MethodPost, "/api/v1/bookings/"+id+"/cancel", token, "", nil)
	case r < 0.30: // the guest pays too late
		sleep(ctx, holdTTL+time.Second)
		ld.pay(settle, id, price, false)
	case r < 0.40: // the hold expires unpaid
	default:
		ld.pay(settle, id, price, rand.Float64() < 0.2)
		if rand.Float64() < 0.1 { // a second payment for the same booking
			ld.pay(settle, id, price, false)
		}
		if rand.Float64() < 0.35 {
			sleep(ctx, 300*time.Millisecond)
			ld.call(ctx, http.MethodPost, "/api/v1/bookings/"+id+"/cancel", token, "", nil)
		}
	}
}

// pay plays the guest completing a payment at the provider and the provider's webhook, sent
// until the API acknowledges it (twice when twice is set, as providers do).
func (ld *load) pay(settle context.Context, bookingID string, amount int64, twice bool) {
	pi := fmt.Sprintf("pi_chaos_r%d_%d", ld.run, rand.Int64())
	ld.l.pay(pi, bookingID, amount)
	payload := payments.EventPayload("evt_"+pi, "payment_intent.succeeded",
		payments.PaymentIntentObject(pi, bookingID, amount, "EUR"), time.Now())
	for delivered := 0; delivered < 1 || (twice && delivered < 2); {
		req, _ := http.NewRequestWithContext(settle, http.MethodPost, ld.s.apiURL+"/api/v1/webhooks/payments", bytes.NewReader(payload))
		req.Header.Set("Stripe-Signature", payments.SignWebhook(payload, string(ld.s.webhookSecret), time.Now()))
		res, err := ld.http.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			_ = res.Body.Close()
			if res.StatusCode == http.StatusOK {
				delivered++
				ld.l.acked(pi)
				continue
			}
		}
		if settle.Err() != nil {
			return
		}
		sleep(settle, 500*time.Millisecond)
	}
}

// call sends a request as a customer; status 0 means no answer.
func (ld *load) call(ctx context.Context, method, path, token, key string, body any) (int, map[string]any) {
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, ld.s.apiURL+path, rd)
	if err != nil {
		return 0, nil
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	res, err := ld.http.Do(req)
	if err != nil {
		return 0, nil
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func (l *ledger) count() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.attempts++
}

func (l *ledger) book(id string, price int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.booked[id] = price
}

func (l *ledger) pay(pi, bookingID string, amount int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.paid[pi] = paid{bookingID: bookingID, amount: amount}
}

func (l *ledger) acked(pi string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.paid[pi]
	p.acked = true
	l.paid[pi] = p
}
