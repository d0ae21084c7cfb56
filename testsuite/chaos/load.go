package chaos

import (
	"bytes"
	"cmp"
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

// ledger is what the load's clients were told and did: the bookings they were given, the
// payments they made and whether the API acknowledged their webhooks, the cancels answered.
// The runs judge bookflow's outcome against it.
type ledger struct {
	mu       sync.Mutex
	booked   map[string]*granted // booking id -> what the client was told
	paid     map[string]*paid    // payment id -> what it paid
	attempts int
	dirty    map[string]bool // bookings whose entries changed since the money count last read them
}

type granted struct {
	run       int
	hotel     string
	price     int64
	expiresAt time.Time
	// cancelled: a cancel was answered 200; cancelTried: one was sent, answered or not.
	cancelled, cancelTried bool
	story                  string           // the money client's story; "" for a checkout client's booking
	desk                   map[string]int64 // desk payments answered 200, by key
	refundsAnswered        int64            // staff refunds keeping the units, answered 200
	unsure                 bool             // a money command was never answered: what it did is unknown
}

type paid struct {
	run       int
	bookingID string
	amount    int64
	first     bool      // the booking's first payment, made with the intent the API gave
	ackedAt   time.Time // when the API acknowledged the webhook; zero: never
	// amendmentID and dueBy: the payment of an amendment's balance, due by dueBy.
	amendmentID int64
	dueBy       time.Time
}

func newLedger() *ledger {
	return &ledger{booked: map[string]*granted{}, paid: map[string]*paid{}, dirty: map[string]bool{}}
}

// load is the checkout front ends and the payment provider's webhooks, against the API.
type load struct {
	s      *system
	l      *ledger
	hotels []string
	stay   domain.Stay
	http   *http.Client
	run    int
	base   string // the API's address when not the system's (one API process of a cluster)
	money  int    // money clients (money_load.go) beside the checkout clients
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
	for c := range ld.money {
		wg.Go(func() {
			m := ld.moneyClient(settle, c, ld.hotels)
			for ctx.Err() == nil {
				m.story(ctx)
			}
		})
	}
	wg.Wait()
}

func (ld *load) one(ctx, settle context.Context, customer string, n int) {
	token, _ := auth.Mint(ld.s.jwtSecret, domain.Principal{Subject: customer, Roles: []domain.Role{domain.RoleCustomer}},
		time.Hour, auth.MintOptions{})
	hotel := ld.hotels[rand.IntN(len(ld.hotels))]
	body := map[string]any{"hotelId": hotel, "roomTypeId": "double",
		"checkIn": ld.stay.CheckIn, "checkOut": ld.stay.CheckOut, "quantity": 1}
	ld.l.count()
	// No answer, or a 5xx: the same key again, as a checkout does, until an answer says what
	// happened (201 the first time, 200 for a hold already made under the key).
	var hold bookingView
	for ctx.Err() == nil {
		status, res := ld.call(ctx, http.MethodPost, "/api/v1/bookings", token, fmt.Sprintf("k%d", n), body, &hold)
		if (status == http.StatusCreated || status == http.StatusOK) && res && hold.ID != "" && hold.Status == "HOLD" {
			break
		}
		if status != 0 && status < 500 {
			return // sold out, or the hold already ended
		}
		sleep(ctx, 300*time.Millisecond)
	}
	if ctx.Err() != nil {
		return
	}
	id := hold.ID
	ld.l.book(id, &granted{run: ld.run, hotel: hotel, price: hold.Price.Total, expiresAt: hold.ExpiresAt})
	cancel := func() {
		ld.l.cancelTried(id)
		if status, _ := ld.call(ctx, http.MethodPost, "/api/v1/bookings/"+id+"/cancel", token, "", nil, nil); status == http.StatusOK {
			ld.l.cancelled(id)
		}
	}

	switch r := rand.Float64(); {
	case r < 0.15: // the guest gives up
		cancel()
	case r < 0.30: // the guest opens the checkout, then pays too late
		pi := ld.checkout(ctx, id, token)
		sleep(ctx, time.Until(hold.ExpiresAt)+time.Second)
		ld.pay(settle, pi, id, hold.Price.Total, true, false)
	case r < 0.40: // the hold expires unpaid
	default:
		pi := ld.checkout(ctx, id, token)
		ld.pay(settle, pi, id, hold.Price.Total, true, rand.Float64() < 0.2)
		if rand.Float64() < 0.1 { // a second payment for the same booking
			ld.pay(settle, fmt.Sprintf("pi_chaos_second_r%d_%d", ld.run, rand.Int64()), id, hold.Price.Total, false, false)
		}
		if rand.Float64() < 0.35 {
			sleep(ctx, 300*time.Millisecond)
			cancel()
		}
	}
}

// bookingView is the part of the API's booking answer the load reads.
type bookingView struct {
	ID        string    `json:"id"`
	Status    string    `json:"status"`
	ExpiresAt time.Time `json:"expiresAt"`
	Price     struct {
		Total int64 `json:"total"`
	} `json:"price"`
}

// checkout asks the API for the booking's payment, as the checkout page does; when the API
// cannot say, the guest pays with an intent made elsewhere (the provider still knows it).
func (ld *load) checkout(ctx context.Context, bookingID, token string) string {
	var out struct {
		PaymentID string `json:"paymentId"`
	}
	for try := 0; try < 5 && ctx.Err() == nil; try++ {
		status, ok := ld.call(ctx, http.MethodPost, "/api/v1/bookings/"+bookingID+"/payment", token, "", nil, &out)
		if status == http.StatusOK && ok && out.PaymentID != "" {
			return out.PaymentID
		}
		if status == http.StatusConflict {
			break
		}
		sleep(ctx, 300*time.Millisecond)
	}
	return fmt.Sprintf("pi_chaos_direct_r%d_%d", ld.run, rand.Int64())
}

// pay plays the guest paying at the provider and the provider's webhook, sent until the API
// acknowledges it (twice when twice is set, as providers do).
func (ld *load) pay(settle context.Context, pi, bookingID string, amount int64, first, twice bool) {
	ld.l.pay(pi, &paid{run: ld.run, bookingID: bookingID, amount: amount, first: first})
	ld.deliver(settle, pi, amount, payments.PaymentIntentObject(pi, bookingID, amount, "EUR"), twice)
}

// deliver charges the guest amount at the provider on pi (already in the ledger) and sends the
// webhook of intent until the API acknowledges it.
func (ld *load) deliver(settle context.Context, pi string, amount int64, intent map[string]any, twice bool) {
	ld.s.provider.Pay(pi, amount)
	payload := payments.EventPayload("evt_"+pi, "payment_intent.succeeded", intent, time.Now())
	for delivered := 0; delivered < 1 || (twice && delivered < 2); {
		req, _ := http.NewRequestWithContext(settle, http.MethodPost, cmp.Or(ld.base, ld.s.apiURL)+"/api/v1/webhooks/payments",
			bytes.NewReader(payload))
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
			return // never acknowledged: counted as lost
		}
		sleep(settle, 500*time.Millisecond)
	}
}

// call sends a request as a customer and decodes a 2xx answer into out; status 0 means no
// answer, decoded whether out was filled.
func (ld *load) call(ctx context.Context, method, path, token, key string, body, out any) (status int, decoded bool) {
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, cmp.Or(ld.base, ld.s.apiURL)+path, rd)
	if err != nil {
		return 0, false
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	res, err := ld.http.Do(req)
	if err != nil {
		return 0, false
	}
	defer res.Body.Close()
	if out == nil || res.StatusCode >= 300 {
		_, _ = io.Copy(io.Discard, res.Body)
		return res.StatusCode, false
	}
	return res.StatusCode, json.NewDecoder(res.Body).Decode(out) == nil
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

func (l *ledger) book(id string, g *granted) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.booked[id] = g
	l.dirty[id] = true
}

func (l *ledger) cancelTried(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.booked[id].cancelTried = true
	l.dirty[id] = true
}

func (l *ledger) cancelled(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.booked[id].cancelled = true
	l.dirty[id] = true
}

func (l *ledger) pay(pi string, p *paid) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.paid[pi] = p
	l.dirty[p.bookingID] = true
}

func (l *ledger) acked(pi string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p := l.paid[pi]; p.ackedAt.IsZero() {
		p.ackedAt = time.Now()
		l.dirty[p.bookingID] = true
	}
}

func (l *ledger) deskPaid(id, key string, amount int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	g := l.booked[id]
	if g.desk == nil {
		g.desk = map[string]int64{}
	}
	g.desk[key] = amount
	l.dirty[id] = true
}

func (l *ledger) refundAnswered(id string, amount int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.booked[id].refundsAnswered += amount
	l.dirty[id] = true
}

func (l *ledger) unsure(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.booked[id].unsure = true
	l.dirty[id] = true
}
