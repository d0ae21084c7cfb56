package testsuite

import (
	"context"
	"testing"
	"time"

	"github.com/bookflow/bookflow/worker"
)

// startEventSender sends the system's integrator events, as its worker process would, quickly:
// polled every 50ms, retried after 100ms, doubling to 1s.
func (s *System) startEventSender(t testing.TB, opts SystemOptions) {
	retryFor := opts.EventRetryFor
	if retryFor == 0 {
		retryFor = time.Minute
	}
	sender := &worker.EventSender{Store: s.DB.Store, Poll: 50 * time.Millisecond, FirstBackoff: 100 * time.Millisecond,
		MaxBackoff: time.Second, RetryFor: retryFor, Logger: quietLogger()}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		sender.Run(ctx)
	}()
	t.Cleanup(func() {
		stop()
		<-done
	})
}

// startOfferStarter starts the workflows of the waitlist's offers, as its worker process would,
// polled every 50ms.
func (s *System) startOfferStarter(t testing.TB, opts SystemOptions) {
	starter := &worker.OfferStarter{Temporal: s.Temporal, Store: s.DB.Store, Poll: 50 * time.Millisecond,
		Resume: worker.ResumeOptions{TaskQueue: s.TaskQueue, BookingIDKey: s.bookingIDKey(), LateWindow: opts.LateWindow,
			RefundBackoff: opts.RefundBackoff}, Logger: quietLogger()}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		starter.Run(ctx)
	}()
	t.Cleanup(func() {
		stop()
		<-done
	})
}
