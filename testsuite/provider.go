package testsuite

import (
	"context"
	"sync"
	"time"

	"github.com/bookflow/bookflow/payments"
)

// ScriptedProvider is a payment provider whose answers a test decides, call by call. It records
// every request and every lookup.
type ScriptedProvider struct {
	mu       sync.Mutex
	requests []payments.RefundRequest
	answer   func(n int, r payments.RefundRequest) (payments.Refund, error)
	lookups  []payments.RefundLookup
	lookup   func(q payments.RefundLookup) (payments.Refund, bool, error)
	paid     []payments.PaymentRecord
}

// LookupRefund records the lookup and answers as scripted; with no script, the provider has no
// such refund.
func (p *ScriptedProvider) LookupRefund(_ context.Context, q payments.RefundLookup) (payments.Refund, bool, error) {
	p.mu.Lock()
	p.lookups = append(p.lookups, q)
	lookup := p.lookup
	p.mu.Unlock()
	if lookup == nil {
		return payments.Refund{}, false, nil
	}
	return lookup(q)
}

// SetLookup sets how lookups are answered.
func (p *ScriptedProvider) SetLookup(lookup func(q payments.RefundLookup) (payments.Refund, bool, error)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lookup = lookup
}

// Lookups returns the lookups made so far.
func (p *ScriptedProvider) Lookups() []payments.RefundLookup {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]payments.RefundLookup(nil), p.lookups...)
}

// CreateRefund records the request and answers as scripted.
func (p *ScriptedProvider) CreateRefund(_ context.Context, r payments.RefundRequest) (payments.Refund, error) {
	p.mu.Lock()
	p.requests = append(p.requests, r)
	n, answer := len(p.requests), p.answer
	p.mu.Unlock()
	if answer == nil {
		return payments.Refund{ID: "re_" + r.IdempotencyKey, Status: "succeeded"}, nil
	}
	return answer(n, r)
}

// SetAnswer sets how the n-th call (from 1) is answered; with none, every call gets a
// succeeded refund.
func (p *ScriptedProvider) SetAnswer(answer func(n int, r payments.RefundRequest) (payments.Refund, error)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.answer = answer
}

// Requests returns the requests received so far.
func (p *ScriptedProvider) Requests() []payments.RefundRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]payments.RefundRequest(nil), p.requests...)
}

// Paid adds a payment the provider took, which it lists from then on.
func (p *ScriptedProvider) Paid(r payments.PaymentRecord) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paid = append(p.paid, r)
}

// SucceededPayments lists the payments added with Paid that succeeded since.
func (p *ScriptedProvider) SucceededPayments(_ context.Context, since time.Time) ([]payments.PaymentRecord, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []payments.PaymentRecord
	for _, r := range p.paid {
		if !r.SucceededAt.Before(since) {
			out = append(out, r)
		}
	}
	return out, nil
}
