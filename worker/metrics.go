package worker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// StateMetrics reports what only PostgreSQL and Temporal know: the bookings waiting for an
// operator, the invariant checker's latest findings, and the availability outbox's backlog. It
// reads them at scrape time, at most once per Every, so scrapes from several Prometheus servers
// (or anyone who reaches the metrics address) cost the database and Temporal a few reads a
// minute. Every worker reports them; the alert rules take the max across workers.
type StateMetrics struct {
	Store    *db.Store
	Temporal client.Client // nil: no stuck-booking counts
	Every    time.Duration // stateEvery when zero
	// Cached says the worker relays the outbox to a cache. Without one the outbox's oldest row
	// is only kept for other relays (cache.UnappliedKept): its age is left out, or a fleet
	// without Redis would always seem behind.
	Cached bool

	mu     sync.Mutex
	at     time.Time
	last   []prometheus.Metric
	failed []error
}

// stateEvery is how long a reading of the state serves scrapes.
const stateEvery = 10 * time.Second

// scrapeTimeout bounds each of a scrape's reads.
const scrapeTimeout = 2 * time.Second

var (
	stuckDesc = prometheus.NewDesc("bookflow_stuck_bookings",
		"Running booking workflows waiting for an operator, by BookingStatus (PAYMENT_STUCK, SUPPLIER_STUCK).",
		[]string{"status"}, nil)
	findingsDesc = prometheus.NewDesc("bookflow_invariant_findings",
		"Findings of the invariant checker's latest run, by check (0 for a check that found nothing).",
		[]string{"check"}, nil)
	checkedDesc = prometheus.NewDesc("bookflow_invariant_check_finished_timestamp_seconds",
		"When the invariant checker's latest run finished (Unix time).", nil, nil)
	backlogDesc = prometheus.NewDesc("bookflow_outbox_backlog",
		"Availability changes committed but not yet relayed to the cache.", nil, nil)
	oldestDesc = prometheus.NewDesc("bookflow_outbox_oldest_age_seconds",
		"Age of the oldest availability change waiting for the relay (0 when none waits).", nil, nil)
)

// checks are the invariant checks reported, each with its own series even at zero, so an alert
// on one has a series to watch.
var checks = []string{domain.CheckInventory, domain.CheckHoldPastExpiry, domain.CheckRefundingOrphan,
	domain.CheckUnmatchedPay, domain.CheckRefundTwice, domain.CheckRefundUnsettled, domain.CheckRefundOwed, domain.CheckNotChecked}

// Describe implements prometheus.Collector.
func (s *StateMetrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{stuckDesc, findingsDesc, checkedDesc, backlogDesc, oldestDesc} {
		ch <- d
	}
}

// Collect implements prometheus.Collector. A read that fails leaves its series out (and is
// reported to the scrape, which goes on without it), rather than answering a made-up zero.
func (s *StateMetrics) Collect(ch chan<- prometheus.Metric) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if every := cmp.Or(s.Every, stateEvery); time.Since(s.at) >= every {
		s.last, s.failed = s.read()
		s.at = time.Now()
	}
	for _, m := range s.last {
		ch <- m
	}
	for _, err := range s.failed {
		ch <- prometheus.NewInvalidMetric(stuckDesc, err)
	}
}

// read reads the state, each source within scrapeTimeout.
func (s *StateMetrics) read() (out []prometheus.Metric, failed []error) {
	fail := func(what string, err error) {
		slog.Warn("metrics: state not read", "what", what, "err", err)
		failed = append(failed, fmt.Errorf("%s: %w", what, err))
	}
	within := func(read func(ctx context.Context)) {
		ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
		defer cancel()
		read(ctx)
	}

	if s.Temporal != nil {
		for _, status := range []string{workflows.StatusPaymentStuck, workflows.StatusSupplierStuck} {
			within(func(ctx context.Context) {
				res, err := s.Temporal.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{
					Query: fmt.Sprintf(`BookingStatus = %q AND ExecutionStatus = "Running"`, status)})
				if err != nil {
					fail("stuck bookings", err)
					return
				}
				out = append(out, prometheus.MustNewConstMetric(stuckDesc, prometheus.GaugeValue, float64(res.GetCount()), status))
			})
		}
	}

	within(func(ctx context.Context) {
		switch counts, finished, err := s.Store.LatestCheckCounts(ctx); {
		case errors.Is(err, domain.ErrNotFound): // never ran: nothing to report yet
		case err != nil:
			fail("invariant findings", err)
		default:
			for _, c := range checks {
				out = append(out, prometheus.MustNewConstMetric(findingsDesc, prometheus.GaugeValue, float64(counts[c]), c))
			}
			out = append(out, prometheus.MustNewConstMetric(checkedDesc, prometheus.GaugeValue, float64(finished.Unix())))
		}
	})

	within(func(ctx context.Context) {
		n, oldest, err := s.Store.OutboxBacklog(ctx)
		if err != nil {
			fail("outbox backlog", err)
			return
		}
		age := 0.0
		if !oldest.IsZero() {
			age = max(0, time.Since(oldest).Seconds())
		}
		out = append(out, prometheus.MustNewConstMetric(backlogDesc, prometheus.GaugeValue, float64(n)))
		if s.Cached {
			out = append(out, prometheus.MustNewConstMetric(oldestDesc, prometheus.GaugeValue, age))
		}
	})
	return out, failed
}
