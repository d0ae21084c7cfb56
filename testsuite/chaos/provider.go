package chaos

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Provider is a Stripe-compatible payment provider the fault runs control: it creates payment
// intents and refunds (honouring idempotency keys as Stripe does), looks refunds up, and can be
// made to fail or to answer slowly. It is the truth the runs check bookflow's money against:
// what it refunded, per payment.
type Provider struct {
	URL string

	mu       sync.Mutex
	mode     string        // "", "failing" or "slow"
	delay    time.Duration // in slow mode
	serial   int
	byKey    map[string]any // idempotency key -> the object answered
	refunds  map[string]*refund
	refunded map[string]int64 // payment intent -> amount refunded
	srv      *http.Server
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
	p := &Provider{URL: "http://" + ln.Addr().String(), byKey: map[string]any{}, refunds: map[string]*refund{},
		refunded: map[string]int64{}}
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

// SetMode makes the provider fail every call ("failing"), answer after delay ("slow"), or
// behave ("").
func (p *Provider) SetMode(mode string, delay time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode, p.delay = mode, delay
}

// Refunded returns what the provider gave back, per payment intent.
func (p *Provider) Refunded() map[string]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int64, len(p.refunded))
	for k, v := range p.refunded {
		out[k] = v
	}
	return out
}

// fault applies the mode to a call; it reports whether the call failed.
func (p *Provider) fault(w http.ResponseWriter) bool {
	p.mu.Lock()
	mode, delay := p.mode, p.delay
	p.mu.Unlock()
	switch mode {
	case "failing":
		writeJSON(w, http.StatusInternalServerError, map[string]any{"error": map[string]string{
			"type": "api_error", "message": "the provider is failing (fault injected)"}})
		return true
	case "slow":
		time.Sleep(delay)
	}
	return false
}

// idempotent answers a request whose key was seen with the object first answered to it.
func (p *Provider) idempotent(w http.ResponseWriter, r *http.Request, create func() any) {
	key := r.Header.Get("Idempotency-Key")
	p.mu.Lock()
	obj, seen := p.byKey[key]
	if !seen {
		obj = create()
		if key != "" {
			p.byKey[key] = obj
		}
	}
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, obj)
}

func (p *Provider) createPaymentIntent(w http.ResponseWriter, r *http.Request) {
	if p.fault(w) {
		return
	}
	_ = r.ParseForm()
	amount, _ := strconv.ParseInt(r.Form.Get("amount"), 10, 64)
	p.idempotent(w, r, func() any {
		p.serial++
		id := fmt.Sprintf("pi_chaos_%d", p.serial)
		return map[string]any{"id": id, "object": "payment_intent", "amount": amount, "currency": r.Form.Get("currency"),
			"client_secret": id + "_secret", "status": "requires_payment_method",
			"metadata": map[string]string{"bookingId": r.Form.Get("metadata[bookingId]")}}
	})
}

func (p *Provider) createRefund(w http.ResponseWriter, r *http.Request) {
	if p.fault(w) {
		return
	}
	_ = r.ParseForm()
	amount, _ := strconv.ParseInt(r.Form.Get("amount"), 10, 64)
	pi := r.Form.Get("payment_intent")
	p.idempotent(w, r, func() any {
		p.serial++
		re := &refund{ID: fmt.Sprintf("re_chaos_%d", p.serial), Object: "refund", Amount: amount, Currency: "eur",
			Status: "succeeded", PaymentIntent: pi, Metadata: map[string]string{
				"bookingId": r.Form.Get("metadata[bookingId]"), "refundKey": r.Form.Get("metadata[refundKey]")}}
		p.refunds[re.ID] = re
		p.refunded[pi] += amount
		return re
	})
}

func (p *Provider) getRefund(w http.ResponseWriter, r *http.Request) {
	if p.fault(w) {
		return
	}
	p.mu.Lock()
	re, ok := p.refunds[r.PathValue("id")]
	p.mu.Unlock()
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]string{
			"type": "invalid_request_error", "message": "No such refund"}})
		return
	}
	writeJSON(w, http.StatusOK, re)
}

func (p *Provider) listRefunds(w http.ResponseWriter, r *http.Request) {
	if p.fault(w) {
		return
	}
	pi := r.URL.Query().Get("payment_intent")
	p.mu.Lock()
	data := []*refund{}
	for _, re := range p.refunds {
		if re.PaymentIntent == pi {
			data = append(data, re)
		}
	}
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "url": "/v1/refunds", "has_more": false, "data": data})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
