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
