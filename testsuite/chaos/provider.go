package chaos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"sync"
	"time"
)

// Provider is a Stripe-compatible payment provider the fault runs control, and the truth they
// check bookflow's money against: what guests paid and what was given back, per payment.
//
// It keeps Stripe's rules where bookflow depends on them: the first answer to an idempotency
// key is saved and replayed (a key reused with other parameters is refused, one still in flight
// answers 409); a refund needs a paid payment and may not exceed what is left of it. Its faults:
// "failing" answers 500 before doing anything (an outage in front of the API); "lost" carries
// refunds out and then drops the connection (the reply is lost); "slow" carries calls out and
// answers after delay, past the client's timeout.
type Provider struct {
	URL string

	mu       sync.Mutex
	mode     string
	delay    time.Duration
	serial   int
	saved    map[string]savedAnswer // idempotency key -> the first answer
	inFlight map[string]bool
	paid     map[string]int64 // payment intent -> amount the guest paid
	intents  map[string]int64 // payment intent -> amount asked for
	refunds  map[string]*refund
	refunded map[string]int64 // payment intent -> amount refunded
	stats    ProviderStats
	srv      *http.Server
}

// ProviderStats count what the provider's faults and rules did to bookflow's calls.
type ProviderStats struct {
	Failed     int // answered 500 without being carried out
	Lost       int // carried out, the reply never sent
	Slow       int // answered past the slow delay
	Replayed   int // answered from an idempotency key's first answer
	InFlight   int // refused: the same key still in flight
	Refused    int // refunds refused: unknown payment, or beyond what is left of it
	Refunds    int // refunds made
	Intents    int // payment intents made
	LookedUpBy int // refund lookups (by id or by listing a payment's refunds)
}

// Provider modes.
const (
	modeFailing = "failing"
	modeLost    = "lost"
	modeSlow    = "slow"
)

// latency is every refund creation's time at the provider, so that a killed worker is likely to
// have one in flight.
const latency = 150 * time.Millisecond

type savedAnswer struct {
	params string // the request's parameters, to refuse a key reused for another request
	status int
	body   any
}

type refund struct {
	ID            string            `json:"id"`
	Object        string            `json:"object"`
	Amount        int64             `json:"amount"`
	Currency      string            `json:"currency"`
	Status        string            `json:"status"`
	PaymentIntent string            `json:"payment_intent"`
	Metadata      map[string]string `json:"metadata"`
}

// StartProvider serves the provider on a loopback port.
func StartProvider() (*Provider, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Provider{URL: "http://" + ln.Addr().String(), saved: map[string]savedAnswer{}, inFlight: map[string]bool{},
		paid: map[string]int64{}, intents: map[string]int64{}, refunds: map[string]*refund{}, refunded: map[string]int64{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/payment_intents", p.createPaymentIntent)
	mux.HandleFunc("POST /v1/refunds", p.createRefund)
	mux.HandleFunc("GET /v1/refunds/{id}", p.getRefund)
	mux.HandleFunc("GET /v1/refunds", p.listRefunds)
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go p.srv.Serve(ln) //nolint:errcheck // ends with Close
	return p, nil
}

// Close stops the provider.
func (p *Provider) Close() { _ = p.srv.Close() }

// SetMode sets the fault mode ("" behaves) and the slow mode's delay.
func (p *Provider) SetMode(mode string, delay time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode, p.delay = mode, delay
}

// Pay records that the guest paid amount on payment intent pi (the card was charged); the
// webhook is the load's to send.
func (p *Provider) Pay(pi string, amount int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paid[pi] = amount
}

// Stats returns what the provider's faults and rules did so far.
func (p *Provider) Stats() ProviderStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// Paid returns what guests paid, per payment intent.
func (p *Provider) Paid() map[string]int64 { return p.snapshot(p.paid) }

// Refunded returns what the provider gave back, per payment intent.
func (p *Provider) Refunded() map[string]int64 { return p.snapshot(p.refunded) }

func (p *Provider) snapshot(m map[string]int64) map[string]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (p *Provider) currentMode() (string, time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode, p.delay
}

// call runs an API call under the fault mode and Stripe's idempotency rules: execute makes the
// object (under p.mu) and returns the status and body to answer; lost says the mode may drop
// this call's reply after executing it.
func (p *Provider) call(w http.ResponseWriter, r *http.Request, lost bool, execute func() (int, any)) {
	mode, delay := p.currentMode()
	if mode == modeFailing {
		p.count(func(s *ProviderStats) { s.Failed++ })
		writeJSON(w, http.StatusInternalServerError, stripeError("api_error", "the provider is failing (fault injected)"))
		return
	}
	_ = r.ParseForm()
	key, params := r.Header.Get("Idempotency-Key"), r.PostForm.Encode()
	p.mu.Lock()
	answer, seen := p.saved[key]
	switch {
	case key == "":
		answer.status, answer.body = execute()
	case seen && answer.params != params:
		answer = savedAnswer{status: http.StatusBadRequest, body: stripeError("idempotency_error",
			"Keys for idempotent requests can only be used with the same parameters they were first used with")}
	case seen:
		p.stats.Replayed++
	case p.inFlight[key]:
		p.stats.InFlight++
		answer = savedAnswer{status: http.StatusConflict, body: stripeError("idempotency_error",
			"There is currently another in-progress request using this Idempotent Key")}
	default:
		p.inFlight[key] = true
		p.mu.Unlock()
		time.Sleep(latency)
		p.mu.Lock()
		answer.params = params
		answer.status, answer.body = execute()
		p.saved[key] = answer
		delete(p.inFlight, key)
	}
	p.mu.Unlock()
	switch {
	case mode == modeSlow:
		p.count(func(s *ProviderStats) { s.Slow++ })
		time.Sleep(delay)
	case mode == modeLost && lost:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				p.count(func(s *ProviderStats) { s.Lost++ })
				_ = conn.Close() // done, and the client never hears of it
				return
			}
		}
	}
	writeJSON(w, answer.status, answer.body)
}

func (p *Provider) createPaymentIntent(w http.ResponseWriter, r *http.Request) {
	p.call(w, r, false, func() (int, any) {
		amount, _ := strconv.ParseInt(r.PostForm.Get("amount"), 10, 64)
		p.serial++
		id := fmt.Sprintf("pi_chaos_%d", p.serial)
		p.intents[id] = amount
		p.stats.Intents++
		return http.StatusOK, map[string]any{"id": id, "object": "payment_intent", "amount": amount,
			"currency": r.PostForm.Get("currency"), "client_secret": id + "_secret", "status": "requires_payment_method",
			"metadata": map[string]string{"bookingId": r.PostForm.Get("metadata[bookingId]")}}
	})
}

func (p *Provider) createRefund(w http.ResponseWriter, r *http.Request) {
	p.call(w, r, true, func() (int, any) {
		amount, _ := strconv.ParseInt(r.PostForm.Get("amount"), 10, 64)
		pi := r.PostForm.Get("payment_intent")
		paid, ok := p.paid[pi]
		switch {
		case !ok:
			p.stats.Refused++
			return http.StatusBadRequest, stripeError("invalid_request_error", "No such payment_intent: '"+pi+"'")
		case amount <= 0 || amount > paid-p.refunded[pi]:
			p.stats.Refused++
			return http.StatusBadRequest, stripeError("invalid_request_error", fmt.Sprintf(
				"Refund amount (%d) is greater than unrefunded amount on charge (%d)", amount, paid-p.refunded[pi]))
		}
		p.serial++
		re := &refund{ID: fmt.Sprintf("re_chaos_%d", p.serial), Object: "refund", Amount: amount, Currency: "eur",
			Status: "succeeded", PaymentIntent: pi, Metadata: map[string]string{
				"bookingId": r.PostForm.Get("metadata[bookingId]"), "refundKey": r.PostForm.Get("metadata[refundKey]")}}
		p.refunds[re.ID] = re
		p.refunded[pi] += amount
		p.stats.Refunds++
		return http.StatusOK, re
	})
}

func (p *Provider) getRefund(w http.ResponseWriter, r *http.Request) {
	p.call(w, r, false, func() (int, any) {
		p.stats.LookedUpBy++
		re, ok := p.refunds[r.PathValue("id")]
		if !ok {
			return http.StatusNotFound, stripeError("invalid_request_error", "No such refund")
		}
		return http.StatusOK, *re
	})
}

func (p *Provider) listRefunds(w http.ResponseWriter, r *http.Request) {
	pi := r.URL.Query().Get("payment_intent")
	p.call(w, r, false, func() (int, any) {
		p.stats.LookedUpBy++
		data := []refund{}
		for _, re := range p.refunds {
			if re.PaymentIntent == pi {
				data = append(data, *re)
			}
		}
		sort.Slice(data, func(i, j int) bool { return data[i].ID < data[j].ID })
		return http.StatusOK, map[string]any{"object": "list", "url": "/v1/refunds?" + url.Values{"payment_intent": {pi}}.Encode(),
			"has_more": false, "data": data}
	})
}

func (p *Provider) count(f func(*ProviderStats)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f(&p.stats)
}

func stripeError(typ, msg string) map[string]any {
	return map[string]any{"error": map[string]string{"type": typ, "message": msg}}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	_ = json.NewEncoder(&buf).Encode(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
