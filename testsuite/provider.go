package testsuite

import (
	"context"
	"sync"

	"github.com/bookflow/bookflow/payments"
)

// ScriptedProvider is a payment provider whose answers a test decides, call by call. It records
// every request.
type ScriptedProvider struct {
	mu       sync.Mutex
	requests []payments.RefundRequest
	answer   func(n int, r payments.RefundRequest) (payments.Refund, error)
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
