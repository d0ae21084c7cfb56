package testsuite_test

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"pgregory.net/rapid"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/workflows"
)

// The model and the payment provider of TestMoneyStoriesThroughTheWorkflows
// (money_stories_e2e_test.go): what the guest paid, what the booking keeps and what must come
// back, refund step by refund step, as the workflows should move it.

// What a refund step is waiting for.
const (
	stepQueued  = "queued"  // a cancel's part behind the one its saga gives back first
	stepStuck   = "stuck"   // failed MaxRefundAttempts times: it waits for an operator
	stepPending = "pending" // the provider answered pending: its webhook will say
	stepAtDesk  = "atDesk"  // a desk payment's part nobody at the desk asked for: it waits there, pending, to be handed over
	stepGiven   = "given"
)

// What the provider does with a booking's refunds from now on.
const (
	providerPays     = "pays"
	providerDeclines = "declines"
	providerStalls   = "stalls"
)

// flowPay is one payment as the model knows it.
type flowPay struct {
	id     string
	desk   bool // taken at the desk (cash): given back there, never through the provider
	amount int64
	kept   bool  // the booking keeps it (it paid the price, a deposit, a balance)
	keep   int64 // of a kept payment: what the booking still keeps of it
	back   int64 // given back
	byHand int64 // of back: resolved by hand by an operator
}

// flowRefund is one refund step: part of a payment asked back, given by one saga.
type flowRefund struct {
	pay      *flowPay
	amount   int64
	state    string
	failures int  // failed attempts since the saga (re)started: MaxRefundAttempts make it stuck
	cancel   bool // a cancel's part: its saga gives the parts back one after the other
	byNobody bool // asked by nobody at the desk (the guest's own cancel, finance): a desk part waits there to be handed over
}

// flowModel is what one story's booking should hold.
type flowModel struct {
	status   domain.Status
	price    int64
	checkOut domain.Date
	pays     []*flowPay // in the order they were made
	kept     []*flowPay // in the order the booking kept them: refunds draw on the newest first
	refunds  []*flowRefund
	reversed int64
	lowered  int64  // what amendments down asked back: not paid for the price it costs now
	mode     string // what the provider does with the booking's refunds
	declined int    // refund requests the provider declined: a saga at rest made all its attempts
}

// keeps is what the booking keeps of what was paid.
func (m *flowModel) keeps() int64 {
	var n int64
	for _, p := range m.kept {
		n += p.keep
	}
	return n
}

// money is the ledger's sums (Store.LedgerMoney) as the model has them.
func (m *flowModel) money() db.LedgerMoney {
	l := db.LedgerMoney{Reversed: m.reversed}
	for _, p := range m.pays {
		if p.kept {
			l.Paid, l.Kept, l.Refunded = l.Paid+p.amount, l.Kept+p.keep, l.Refunded+p.back
		} else {
			l.Unkept, l.UnkeptRefunded = l.Unkept+p.amount-p.back, l.UnkeptRefunded+p.back
		}
	}
	for _, r := range m.refunds {
		switch {
		case !r.pay.kept:
		case r.state == stepPending || r.state == stepAtDesk:
			l.Refunding += r.amount
		case r.state != stepGiven:
			l.Owed += r.amount
		}
	}
	return l
}

// due is what is still to pay of the price while the booking holds its units: what its kept
// payments brought, less the reversals and what a lower price gave back (Store.BookingMoneySummary,
// since af45510), does not pay it.
func (m *flowModel) due() int64 {
	if !m.status.HoldsInventory() {
		return 0
	}
	l := m.money()
	return max(m.price-(l.Paid-l.Reversed-m.lowered), 0)
}

// summary is the staff view's money (Store.BookingMoneySummary) as the model has it.
func (m *flowModel) summary() db.MoneySummary {
	l := m.money()
	return db.MoneySummary{Currency: "EUR", Paid: l.Paid, Refunded: l.Refunded, Refunding: l.Owed + l.Refunding, Due: m.due()}
}

// unpaid: a booking the desk confirmed whose desk money was all reversed is owed its price, and
// the checker says so ("neither paid nor on account").
func (m *flowModel) unpaid() bool {
	l := m.money()
	return m.status == domain.StatusConfirmed && m.price > 0 && l.Paid-l.Reversed <= 0
}

func (m *flowModel) payment(id string, amount int64, desk bool) *flowPay {
	p := &flowPay{id: id, desk: desk, amount: amount}
	m.pays = append(m.pays, p)
	return p
}

func (m *flowModel) keepPayment(p *flowPay) {
	p.kept, p.keep = true, p.amount
	m.kept = append(m.kept, p)
}

// ask asks amount back of what the booking keeps, drawn on its kept payments newest first, as the
// database draws a staff refund's, an amendment's and a cancel's refund. A cancel's parts are
// given back one after the other, the others each by a saga of its own, at once. byNobody: the
// refund was asked by nobody at the desk (the guest's own cancel, or finance), so its desk parts
// wait there until a staff member hands them over (issue 39); the desk's are handed over at once.
func (m *flowModel) ask(amount int64, cancel, byNobody bool) {
	var parts []*flowRefund
	for i := len(m.kept) - 1; i >= 0 && amount > 0; i-- {
		p := m.kept[i]
		if take := min(p.keep, amount); take > 0 {
			p.keep, amount = p.keep-take, amount-take
			parts = append(parts, &flowRefund{pay: p, amount: take, state: stepQueued, cancel: cancel, byNobody: byNobody})
		}
	}
	m.refunds = append(m.refunds, parts...)
	if cancel {
		m.nextCancelPart()
		return
	}
	for _, r := range parts {
		m.send(r)
	}
}

// extra gives back a payment the booking does not keep, whole.
func (m *flowModel) extra(p *flowPay) {
	r := &flowRefund{pay: p, amount: p.amount}
	m.refunds = append(m.refunds, r)
	m.send(r)
}

// send is a saga's attempt at r, as the provider answers it now; a declining provider makes the
// saga fail until it is stuck. A desk payment's part is given back at the desk: at once when
// staff asked for it, else it waits there until someone hands it over (handOver).
func (m *flowModel) send(r *flowRefund) {
	switch {
	case r.pay.desk && r.byNobody:
		r.state = stepAtDesk
	case r.pay.desk || m.mode == providerPays:
		m.give(r, false)
	case m.mode == providerDeclines:
		m.declined += workflows.DefaultMaxRefundAttempts - r.failures
		r.state, r.failures = stepStuck, workflows.DefaultMaxRefundAttempts
	default:
		r.state = stepPending
	}
}

func (m *flowModel) give(r *flowRefund, byHand bool) {
	r.state, r.pay.back = stepGiven, r.pay.back+r.amount
	if byHand {
		r.pay.byHand += r.amount
	}
	if r.cancel {
		m.nextCancelPart()
	}
}

// failed is the provider's webhook saying a pending refund failed: the saga tries again.
func (m *flowModel) failed(r *flowRefund) {
	if r.failures++; r.failures >= workflows.DefaultMaxRefundAttempts {
		r.state = stepStuck
		return
	}
	m.send(r)
}

// nextCancelPart goes on with a cancel's refund: its next part is sent once the one before was
// given back; once all are, the booking is REFUNDED.
func (m *flowModel) nextCancelPart() {
	for _, r := range m.refunds {
		switch {
		case !r.cancel || r.state == stepGiven:
		case r.state == stepQueued:
			m.send(r)
			return
		default:
			return // stuck, pending or waiting at the desk: the saga waits there
		}
	}
	m.status = domain.StatusRefunded
}

// steps are the refund steps in state.
func (m *flowModel) steps(state string) []*flowRefund {
	var out []*flowRefund
	for _, r := range m.refunds {
		if r.state == state {
			out = append(out, r)
		}
	}
	return out
}

// atProvider is what the provider should hold of each of the booking's payments it took:
// captured, refunded and pending. A part waiting at the desk is a desk payment's: never the
// provider's.
func (m *flowModel) atProvider() map[string][3]int64 {
	out := map[string][3]int64{}
	for _, p := range m.pays {
		if !p.desk {
			out[p.id] = [3]int64{p.amount, p.back - p.byHand, 0}
		}
	}
	for _, r := range m.steps(stepPending) {
		v := out[r.pay.id]
		v[2] += r.amount
		out[r.pay.id] = v
	}
	return out
}

// flowProvider is the stories' payment provider, and its own record of every booking's money. It
// keeps Stripe's rules bookflow relies on: the first answer to an idempotency key is the answer to
// every request under it, and a refund needs a payment it took and never exceeds what is left of
// it. What it does with a booking's refunds is the story's to say: pay them, decline them, or
// leave them pending until the story settles them (settle, then the provider's webhook).
type flowProvider struct {
	mu       sync.Mutex
	mode     map[string]string // booking -> what its refunds get
	lose     map[string]bool   // booking -> the reply to its next refund request is lost
	captured map[string]flowCapture
	refunds  map[string]*flowProviderRefund // by idempotency key
}

type flowCapture struct {
	booking string
	amount  int64
}

type flowProviderRefund struct {
	id, payment, booking string
	amount               int64
	status               string // pending, succeeded, failed; declined: refused, nothing made
}

// made: the provider made the refund (its outcome may be pending); not declined.
func (rf *flowProviderRefund) made() bool { return !strings.HasPrefix(rf.status, "declined") }

func newFlowProvider() *flowProvider {
	return &flowProvider{mode: map[string]string{}, lose: map[string]bool{}, captured: map[string]flowCapture{}, refunds: map[string]*flowProviderRefund{}}
}

// CreatePayment is the checkout's payment, one per key.
func (p *flowProvider) CreatePayment(ctx context.Context, r payments.PaymentRequest) (payments.Checkout, error) {
	return payments.Fake{}.CreatePayment(ctx, r)
}

// capture takes a guest's payment, before its webhook tells bookflow.
func (p *flowProvider) capture(booking, payment string, amount int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.captured[payment] = flowCapture{booking: booking, amount: amount}
}

func (p *flowProvider) setMode(booking, mode string, loseNextReply bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode[booking], p.lose[booking] = mode, loseNextReply
}

// left is what is left of payment to refund: neither given back nor pending.
func (p *flowProvider) left(payment string) int64 {
	left := p.captured[payment].amount
	for _, rf := range p.refunds {
		if rf.payment == payment && (rf.status == payments.RefundSucceeded || rf.status == payments.RefundPending) {
			left -= rf.amount
		}
	}
	return left
}

func (p *flowProvider) CreateRefund(_ context.Context, r payments.RefundRequest) (payments.Refund, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	rf := p.refunds[r.IdempotencyKey]
	if rf == nil {
		rf = &flowProviderRefund{id: "re_" + r.IdempotencyKey, payment: r.PaymentID, booking: r.BookingID, amount: r.Amount}
		c, took := p.captured[r.PaymentID]
		switch {
		case !took || c.booking != r.BookingID || r.Amount <= 0 || r.Amount > p.left(r.PaymentID):
			rf.status = "declined: no such payment, or more than is left of it"
		case p.mode[r.BookingID] == providerDeclines:
			rf.status = "declined: insufficient balance"
		case p.mode[r.BookingID] == providerStalls:
			rf.status = payments.RefundPending
		default:
			rf.status = payments.RefundSucceeded
		}
		p.refunds[r.IdempotencyKey] = rf
		if p.lose[r.BookingID] {
			p.lose[r.BookingID] = false
			return payments.Refund{}, fmt.Errorf("the reply to refund request %s was lost", r.IdempotencyKey)
		}
	}
	if rf.payment != r.PaymentID || rf.amount != r.Amount {
		return payments.Refund{}, fmt.Errorf("%w: key %s was used for another refund", payments.ErrDeclined, r.IdempotencyKey)
	}
	if !rf.made() {
		return payments.Refund{}, fmt.Errorf("%w: %s", payments.ErrDeclined, rf.status)
	}
	return payments.Refund{ID: rf.id, Status: rf.status}, nil
}

func (p *flowProvider) LookupRefund(_ context.Context, q payments.RefundLookup) (payments.Refund, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for key, rf := range p.refunds {
		if rf.made() && (rf.id == q.RefundID || q.RefundID == "" && rf.payment == q.PaymentID && key == q.IdempotencyKey) {
			return payments.Refund{ID: rf.id, Status: rf.status}, true, nil
		}
	}
	return payments.Refund{}, false, nil
}

// settle gives a pending refund of amount of payment its outcome, as the provider's webhook then
// tells it, and returns its id ("" when there is none).
func (p *flowProvider) settle(payment string, amount int64, ok bool) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, rf := range p.refunds {
		if rf.payment == payment && rf.amount == amount && rf.status == payments.RefundPending {
			rf.status = map[bool]string{true: payments.RefundSucceeded, false: payments.RefundFailed}[ok]
			return rf.id
		}
	}
	return ""
}

// declined counts the refund requests of booking the provider declined.
func (p *flowProvider) declined(booking string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, rf := range p.refunds {
		if rf.booking == booking && !rf.made() {
			n++
		}
	}
	return n
}

// record is the provider's own record of a booking's payments: captured, refunded and pending.
func (p *flowProvider) record(booking string) map[string][3]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string][3]int64{}
	for id, c := range p.captured {
		if c.booking == booking {
			out[id] = [3]int64{c.amount, 0, 0}
		}
	}
	for _, rf := range p.refunds {
		v, took := out[rf.payment]
		switch {
		case !took:
		case rf.status == payments.RefundSucceeded:
			v[1] += rf.amount
		case rf.status == payments.RefundPending:
			v[2] += rf.amount
		}
		if took {
			out[rf.payment] = v
		}
	}
	return out
}

// disagreement says where the system does not agree with the model now, "" where it does: the
// booking's status, its ledger's sums (the payments route's balances), the provider's record (and
// how many refund requests it declined: a saga between attempts is not at rest), whether a refund
// waits for an operator (the workflow's state), and that its workflow has no work pending.
func (s *flowStory) disagreement(t *rapid.T) string {
	var why []string
	var seen struct {
		Status   domain.Status      `json:"status"`
		Balances db.LedgerMoney     `json:"balances"`
		Refunds  []db.RefundAttempt `json:"refunds"`
	}
	s.read(t, s.w.finance, "/api/v1/staff/bookings/"+s.id+"/payments", &seen)
	s.attempts = s.attempts[:0]
	for _, a := range seen.Refunds {
		s.attempts = append(s.attempts, fmt.Sprintf("%s %d %s %s", a.ID, a.Amount, a.Method, a.Status))
	}
	if seen.Status != s.m.status {
		why = append(why, fmt.Sprintf("status %s, the model's %s", seen.Status, s.m.status))
	}
	if want := s.m.money(); seen.Balances != want {
		why = append(why, fmt.Sprintf("ledger %+v, the model's %+v", seen.Balances, want))
	}
	if got, want := s.w.provider.record(s.id), s.m.atProvider(); !maps.Equal(got, want) {
		why = append(why, fmt.Sprintf("the provider's record (captured, refunded, pending) %v, the model's %v", got, want))
	}
	if got := s.w.provider.declined(s.id); got != s.m.declined {
		why = append(why, fmt.Sprintf("the provider declined %d refund requests, the model %d", got, s.m.declined))
	}
	ctx := context.Background()
	d, err := s.w.sys.Temporal.DescribeWorkflow(ctx, s.id, "")
	require.NoError(t, err)
	if d.RawResponse.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		if len(s.m.steps(stepStuck)) > 0 {
			why = append(why, "a refund waits for an operator in a workflow that ended")
		}
		return strings.Join(why, "; ")
	}
	if len(d.RawResponse.PendingActivities) > 0 || d.RawResponse.PendingWorkflowTask != nil {
		why = append(why, "its workflow has work pending")
	}
	var st workflows.BookingState
	v, err := s.w.sys.Temporal.QueryWorkflow(ctx, s.id, "", workflows.QueryState)
	if err == nil {
		err = v.Get(&st)
	}
	switch stuck := len(s.m.steps(stepStuck)) > 0; {
	case err != nil:
		why = append(why, "its workflow's state: "+err.Error())
	case st.Stuck != stuck:
		why = append(why, fmt.Sprintf("a refund waits for an operator: %v, by the model: %v", st.Stuck, stuck))
	}
	return strings.Join(why, "; ")
}

// settle waits until the system agrees with the model twice in a row, 100 ms apart, and fails the
// story with what disagrees and its steps when it does not within 30 s (a workflow task the
// stopped worker had started comes back after Temporal's 10 s workflow task timeout).
func (s *flowStory) settle(t *rapid.T) {
	deadline := time.Now().Add(30 * time.Second)
	for agreed := 0; agreed < 2; {
		why := s.disagreement(t)
		switch {
		case why == "":
			agreed++
		case time.Now().After(deadline):
			t.Fatalf("booking %s does not agree with the model after story %d's steps:\n  %s\n%s\nits refund attempts:\n  %s",
				s.id, s.n, strings.Join(s.steps, "\n  "), why, strings.Join(s.attempts, "\n  "))
		default:
			agreed = 0
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// check checks a settled story's end: the staff view's money, the daily report of the story's
// days at its hotel (the story's booking alone), and the invariant checker, which flags nothing of
// the booking but an unpaid one (see unpaid).
func (s *flowStory) check(t *rapid.T) {
	var view struct {
		Money db.MoneySummary `json:"money"`
	}
	s.read(t, s.w.finance, "/api/v1/staff/bookings/"+s.id, &view)
	require.Equal(t, s.m.summary(), view.Money, "the staff view's money of booking %s", s.id)
	s.checkReport(t)
	report, err := s.w.checks.RunChecks(context.Background(), activities.CheckInput{RefundingAge: time.Nanosecond,
		UnmatchedAge: time.Nanosecond, UnsettledAge: time.Nanosecond}) // however young: the story is settled
	require.NoError(t, err)
	unpaid := s.m.unpaid()
	var flagged []domain.Finding
	for _, f := range report.Findings {
		switch {
		case f.BookingID != s.id:
		case unpaid && f.Check == domain.CheckMoney && strings.HasSuffix(f.Detail, "neither paid nor on account"):
			unpaid = false
		default:
			flagged = append(flagged, f)
		}
	}
	require.Empty(t, flagged, "the checker on booking %s after:\n  %s", s.id, strings.Join(s.steps, "\n  "))
	require.False(t, unpaid, "the checker finds booking %s confirmed and its desk money reversed", s.id)
}

// flowLine is what the daily report breaks a booking's money down by.
type flowLine struct{ kind, channel, method, payment string }

// checkReport checks the daily reports of the days the story ran on at its hotel: each payment
// paid in on its channel by its method, what was given back of it by its method (by hand:
// other), the totals by channel and method, and a net of what the booking keeps.
func (s *flowStory) checkReport(t *rapid.T) {
	want := map[flowLine]int64{}
	for _, p := range s.m.pays {
		channel, method := db.ChannelOnline, domain.MethodProvider
		if p.desk {
			channel, method = db.ChannelDesk, domain.MethodCash
		}
		for l, amount := range map[flowLine]int64{{"payment", channel, method, p.id}: p.amount,
			{"refund", channel, method, p.id}: p.back - p.byHand, {"refund", channel, domain.MethodOther, p.id}: p.byHand} {
			if amount > 0 {
				want[l] += amount
			}
		}
	}
	got, totals, orders := map[flowLine]int64{}, map[flowLine][3]int64{}, map[string]int{}
	var net int64
	for day := s.began; !day.After(domain.DateOf(time.Now(), time.UTC)); day = day.AddDays(1) {
		var r struct {
			Report db.DailyReport `json:"report"`
		}
		s.read(t, s.w.finance, fmt.Sprintf("/api/v1/staff/reports/daily?hotelId=%s&date=%s", s.hotel, day), &r)
		for status, n := range r.Report.OrdersByStatus {
			orders[status] += n
		}
		for _, it := range r.Report.Items {
			require.Equal(t, s.id, it.BookingID, "an item of the report of booking %s's hotel: %+v", s.id, it)
			got[flowLine{it.Kind, it.Channel, it.Method, it.PaymentID}] += max(it.Amount, -it.Amount)
			net += it.Amount
		}
		for _, tot := range r.Report.Totals { // the model counts money, not attempts
			k, v := flowLine{channel: tot.Channel, method: tot.Method}, totals[flowLine{channel: tot.Channel, method: tot.Method}]
			totals[k] = [3]int64{v[0] + tot.Paid, v[1] + tot.Refunded, v[2] + tot.Net}
		}
	}
	require.Equal(t, map[string]int{string(s.m.status): 1}, orders, "the bookings of the report")
	require.Equal(t, want, got, "the report's items of booking %s", s.id)
	require.Equal(t, reportTotals(want), totals, "the report's totals (paid, refunded, net) of booking %s", s.id)
	require.Equal(t, s.m.keeps(), net, "what booking %s keeps by the report", s.id)
}

// reportTotals sums report items by channel and method: paid, refunded and net.
func reportTotals(items map[flowLine]int64) map[flowLine][3]int64 {
	out := map[flowLine][3]int64{}
	for l, amount := range items {
		k := flowLine{channel: l.channel, method: l.method}
		v := out[k]
		if l.kind == "refund" {
			v[1] += amount
		} else {
			v[0] += amount
		}
		v[2] = v[0] - v[1]
		out[k] = v
	}
	return out
}
