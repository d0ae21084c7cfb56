package testsuite_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/auth"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/worker"
)

// Issue 34's model-based test of money stories, through the workflows: one system (API, worker,
// Temporal, PostgreSQL, and a payment provider of the test's own, flowProvider) holds every
// story; a story is a new booking at a hotel of its own and up to eight commands drawn among
// those its state allows, sent as clients send them: the guest's checkout and cancel, the
// provider's signed webhooks, the desk's and finance's staff routes, operators' retries and
// resolutions, a workflow terminated and resumed by the invariant checker, and the worker
// stopped and started again after a command. A small model (money_stories_e2e_model_test.go)
// says what the guest paid, what the booking keeps and what must come back; after every command
// the system settles to agree with it. docs/testing.md ("Money stories through the workflows")
// gives the commands to run it and its control.

// flowHoldTTL is the stories' hold and balance window: a hold runs out, and a balance lapses,
// within a story. It must outlast a hold's early steps (up to three, each perhaps a refund the
// provider declines three times, its replies lost): at 8 s a CI run under load saw a hold run out
// during them, before the story's own step for it.
const flowHoldTTL = 20 * time.Second

// The stories' hotels: a night is 100.00; a cancel or an amendment down keeps 20% of what it
// gives back (the stay is 30 days away, inside the policy's 2000 hours: a fee, not free).
const (
	flowRate       = 10000
	flowFeePercent = 20
)

// flowWorld is the one system every story runs against.
type flowWorld struct {
	t                  *testing.T
	sys                *testsuite.System
	provider           *flowProvider
	checks             *activities.Checks
	customer           string
	guest, finance     string // tokens
	admin              string
	stories, restarted int
}

// flowStory is one story: its booking, its model, and the steps it took.
type flowStory struct {
	w               *flowWorld
	n               int
	hotel, id, desk string // desk: a front desk's token of the story's hotel
	checkIn, began  domain.Date
	m               flowModel
	holdSteps, seq  int
	resumed         bool     // resumed by the checker: its balance window is the workflow's default
	steps, attempts []string // attempts: the booking's refund attempts as last read
}

// flowStories sets how many stories a run tries: BOOKFLOW_WORKFLOW_MONEY_STORIES, else 40, unless
// -rapid.checks is given.
func flowStories(t *testing.T) {
	n := 40
	if v := os.Getenv("BOOKFLOW_WORKFLOW_MONEY_STORIES"); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		require.NoError(t, err, "BOOKFLOW_WORKFLOW_MONEY_STORIES")
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "rapid.checks" })
	if !given {
		require.NoError(t, flag.Set("rapid.checks", strconv.Itoa(n)))
		t.Cleanup(func() { _ = flag.Set("rapid.checks", "100") })
	}
}

func TestMoneyStoriesThroughTheWorkflows(t *testing.T) {
	t.Parallel()
	flowStories(t)
	provider := newFlowProvider()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider, HoldTTL: flowHoldTTL})
	w := &flowWorld{t: t, sys: sys, provider: provider, customer: sys.Customer("guest"),
		checks: worker.NewChecks(sys.Temporal, sys.DB.Store, worker.ResumeOptions{TaskQueue: sys.TaskQueue,
			RefundBackoff: 100 * time.Millisecond})} // the system's refund backoff, for the bookings it resumes
	w.guest = sys.Token(t, domain.Principal{Subject: w.customer, Roles: []domain.Role{domain.RoleCustomer}})
	w.admin = sys.Token(t, domain.Principal{Subject: "admin-" + sys.ID, Roles: []domain.Role{domain.RoleAdmin}})
	w.finance = sys.Token(t, domain.Principal{Subject: "finance-" + sys.ID, Roles: []domain.Role{domain.RoleFinance}})
	began := time.Now()
	rapid.Check(t, w.story)
	t.Logf("%d stories (the worker restarted %d times) in %s", w.stories, w.restarted, time.Since(began).Round(time.Second))
}

// story plays one story: a hold, up to eight commands its state allows, each settled against the
// model and followed (outside a hold), one time in eight, by the worker stopped and another
// started; then every refund is given an outcome and the end is checked.
func (w *flowWorld) story(t *rapid.T) {
	s := w.newStory(t)
	commands := s.commands()
	names := slices.Sorted(maps.Keys(commands))
	for range rapid.IntRange(1, 8).Draw(t, "commands") {
		var possible []string
		for _, name := range names {
			if c := commands[name]; c.can() {
				possible = append(possible, slices.Repeat([]string{name}, max(c.weight, 1))...)
			}
		}
		if len(possible) == 0 {
			break
		}
		name := rapid.SampledFrom(possible).Draw(t, "command")
		held := s.m.status == domain.StatusHold
		if held {
			s.holdSteps++
		}
		commands[name].run(t)
		s.settle(t)
		// At rest, and not in a hold (its timer would race the restart): see docs/testing.md.
		if !held && rapid.IntRange(0, 7).Draw(t, "the worker is restarted (0)") == 0 {
			s.step(t, "the worker is stopped and another started")
			w.sys.StopWorker()
			w.sys.StartWorker(flowTB{w.t, t})
			w.restarted++
			s.settle(t)
		}
	}
	s.windDown(t)
	s.check(t)
}

// newStory opens a hotel of the story's own (one room, the fee policy) and holds two nights of
// it, 30 days away.
func (w *flowWorld) newStory(t *rapid.T) *flowStory {
	w.stories++
	s := &flowStory{w: w, n: w.stories, hotel: fmt.Sprintf("h-flow-%d", w.stories), began: domain.DateOf(time.Now(), time.UTC)}
	stay := stayFromNow(30, 2)
	s.checkIn = stay.CheckIn
	admin := w.admin
	s.do(t, admin, http.MethodPut, "/api/v1/admin/hotels/"+s.hotel+"/room-types/double/inventory", "", map[string]any{
		"from": stay.CheckIn, "to": stay.CheckOut.AddDays(2), "totalRooms": 1, "rate": flowRate, "currency": "EUR"}, http.StatusOK)
	s.do(t, admin, http.MethodPut, "/api/v1/admin/hotels/"+s.hotel+"/cancellation-policy", "", map[string]any{
		"freeUntilHours": 2000, "noRefundHours": 0, "feePercent": flowFeePercent}, http.StatusOK)
	res := s.do(t, w.guest, http.MethodPost, "/api/v1/bookings", "hold-"+s.hotel,
		holdBody(w.customer, s.hotel, "double", stay, 1), http.StatusCreated)
	s.id = res.Body["id"].(string)
	var err error
	s.desk, err = auth.Mint(w.sys.JWTSecret, domain.Principal{Subject: "desk-" + w.sys.ID, Roles: []domain.Role{domain.RoleFrontDesk},
		Hotels: []string{s.hotel}}, time.Hour, auth.MintOptions{})
	require.NoError(t, err)
	s.m = flowModel{status: domain.StatusHold, price: int64(res.Body["price"].(map[string]any)["total"].(float64)),
		checkOut: stay.CheckOut, mode: providerPays}
	w.provider.setMode(s.id, providerPays, false)
	s.step(t, "the guest holds %s: two nights at %s, %d", s.id, s.hotel, s.m.price)
	s.settle(t)
	return s
}

// flowCommand is a command of a story, when the booking's state allows it, and its weight among
// the others (1 when 0): the money a confirmed booking moves is drawn more than how a hold ends.
type flowCommand struct {
	can    func() bool
	run    func(t *rapid.T)
	weight int
}

func (s *flowStory) commands() map[string]flowCommand {
	m := &s.m
	held := func() bool { return m.status == domain.StatusHold }
	early := func() bool { return held() && s.holdSteps < 3 } // the hold's last step ends it: the timer is not raced
	used := func() bool { return m.status == domain.StatusConfirmed }
	waits := func(state string) func() bool { return func() bool { return len(m.steps(state)) > 0 } }
	return map[string]flowCommand{
		"pays":             {can: func() bool { return held() && m.due() > 0 }, run: s.pays, weight: 2},
		"paysAWrongAmount": {can: func() bool { return early() && m.due() > 0 }, run: s.paysAWrongAmount},
		"deskTakesPayment": {can: func() bool { return (early() || used()) && m.due() > 0 }, run: s.deskTakesPayment},
		"deskReverses":     {can: func() bool { return (early() || used()) && len(s.deskKept()) > 0 }, run: s.deskReverses},
		"holdRunsOut":      {can: held, run: s.holdRunsOut},
		"paysLate":         {can: func() bool { return m.status == domain.StatusExpired && !s.tookAtDesk() }, run: s.paysLate, weight: 2},
		"guestCancels":     {can: func() bool { return held() || used() }, run: s.guestCancels},
		"paysTwice":        {can: used, run: s.paysTwice},
		"goodwillRefund":   {can: func() bool { return used() && m.keeps() > 0 }, run: s.goodwill, weight: 3},
		"amendsUp":         {can: func() bool { return used() && m.checkOut.Before(s.checkIn.AddDays(4)) }, run: s.amendsUp, weight: 2},
		"amendsDown":       {can: func() bool { return used() && m.checkOut.After(s.checkIn.AddDays(1)) }, run: s.amendsDown, weight: 2},
		"operatorRetries":  {can: waits(stepStuck), run: func(t *rapid.T) { s.operator(t, "retry", s.provider(t, "the provider now")) }, weight: 2},
		"operatorResolves": {can: waits(stepStuck), run: func(t *rapid.T) { s.operator(t, "resolve", "") }, weight: 2},
		"providerSettles":  {can: waits(stepPending), run: s.providerSettles, weight: 2},
		"deskHandsOver":    {can: waits(stepAtDesk), run: s.deskHandsOver, weight: 2},
		"workflowLost":     {can: used, run: s.workflowLost, weight: 2},
	}
}

func (s *flowStory) pays(t *rapid.T) {
	res := s.do(t, s.w.guest, http.MethodPost, "/api/v1/bookings/"+s.id+"/payment", "", nil, http.StatusOK)
	pi, amount := res.Body["paymentId"].(string), int64(res.Body["amount"].(float64))
	require.Equal(t, s.m.due(), amount, "the checkout asks for what is due")
	s.step(t, "the guest pays the %d due through the checkout (%s)", amount, pi)
	s.paid(t, pi, amount, 0)
	s.m.keepPayment(s.m.payment(pi, amount, false))
	s.m.status = domain.StatusConfirmed
}

func (s *flowStory) paysAWrongAmount(t *rapid.T) {
	due := s.m.due()
	amount := due + rapid.Int64Range(1-due, 5000).Filter(func(d int64) bool { return d != 0 }).Draw(t, "off by")
	mode, pi := s.provider(t, "the provider then"), s.next("pi")
	s.step(t, "the guest pays %d, %d being due (%s): given back; the provider %s refunds", amount, due, pi, mode)
	s.paid(t, pi, amount, 0)
	s.m.extra(s.m.payment(pi, amount, false))
}

func (s *flowStory) paysTwice(t *rapid.T) {
	mode, pi := s.provider(t, "the provider then"), s.next("pi")
	s.step(t, "the guest pays the price, %d, again (%s): given back; the provider %s refunds", s.m.price, pi, mode)
	s.paid(t, pi, s.m.price, 0)
	s.m.extra(s.m.payment(pi, s.m.price, false))
}

func (s *flowStory) paysLate(t *rapid.T) {
	pi := s.next("pi")
	s.step(t, "the guest pays the price, %d, after the hold ran out (%s): the nights are taken again", s.m.price, pi)
	s.paid(t, pi, s.m.price, 0)
	s.m.keepPayment(s.m.payment(pi, s.m.price, false))
	s.m.status = domain.StatusConfirmed
}

func (s *flowStory) deskTakesPayment(t *rapid.T) {
	due := s.m.due()
	amount, key := rapid.Int64Range(1, due).Draw(t, "desk amount"), s.next("desk")
	s.step(t, "the desk takes %d in cash of the %d due (key %s)", amount, due, key)
	s.do(t, s.desk, http.MethodPost, "/api/v1/staff/bookings/"+s.id+"/desk-payments", key,
		map[string]any{"amount": amount, "currency": "EUR", "method": domain.MethodCash}, http.StatusOK)
	s.m.keepPayment(s.m.payment(domain.DeskPaymentID(s.id, key), amount, true))
	if s.m.status == domain.StatusHold { // whatever part of the price it pays (issue 39): the rest is due at the desk
		s.m.status = domain.StatusConfirmed
	}
}

func (s *flowStory) deskReverses(t *rapid.T) {
	id := rapid.SampledFrom(s.deskKept()).Draw(t, "reversed payment")
	p := s.m.pays[slices.IndexFunc(s.m.pays, func(p *flowPay) bool { return p.id == id })]
	amount, key := rapid.Int64Range(1, p.keep).Draw(t, "reversed"), s.next("rev")
	s.step(t, "the desk reverses %d of %s, entered by mistake (key %s)", amount, id, key)
	s.do(t, s.desk, http.MethodPost, "/api/v1/staff/bookings/"+s.id+"/refunds", key,
		map[string]any{"amount": amount, "currency": "EUR", "reason": "entered twice", "reverses": id}, http.StatusOK)
	p.keep, s.m.reversed = p.keep-amount, s.m.reversed+amount
	r := &flowRefund{pay: p, amount: amount}
	s.m.refunds = append(s.m.refunds, r)
	s.m.give(r, false)
}

func (s *flowStory) holdRunsOut(t *rapid.T) {
	s.step(t, "the hold runs out")
	deadline := time.Now().Add(flowHoldTTL + 30*time.Second)
	for s.status(t) == domain.StatusHold {
		require.True(t, time.Now().Before(deadline), "the hold of booking %s never ran out", s.id)
		time.Sleep(200 * time.Millisecond)
	}
	require.Zero(t, s.m.keeps(), "a hold keeps no money: a desk payment confirms it")
	s.m.status = domain.StatusExpired
}

func (s *flowStory) guestCancels(t *rapid.T) {
	keeps := s.m.keeps()
	if s.m.status == domain.StatusHold {
		require.Zero(t, keeps, "a hold keeps no money: a desk payment confirms it")
		s.step(t, "the guest cancels the hold")
		s.do(t, s.w.guest, http.MethodPost, "/api/v1/bookings/"+s.id+"/cancel", "", nil, http.StatusOK)
		s.m.status = domain.StatusCancelled
		return
	}
	if keeps == 0 { // its desk payments were all reversed, or given back: nothing to refund, its units go back
		s.step(t, "the guest cancels a booking that keeps nothing")
		s.do(t, s.w.guest, http.MethodPost, "/api/v1/bookings/"+s.id+"/cancel", "", nil, http.StatusOK)
		s.m.status = domain.StatusCancelled
		return
	}
	s.step(t, "the guest cancels: the policy gives back %d of the %d it keeps; the provider %s refunds",
		keeps-keeps*flowFeePercent/100, keeps, s.provider(t, "the provider then"))
	s.do(t, s.w.guest, http.MethodPost, "/api/v1/bookings/"+s.id+"/cancel", "", nil, http.StatusOK)
	s.m.status = domain.StatusRefunding
	s.m.ask(keeps-keeps*flowFeePercent/100, true, true) // asked by the guest: its desk parts wait at the desk
}

func (s *flowStory) goodwill(t *rapid.T) {
	keeps := s.m.keeps()
	amount, key := rapid.Int64Range(1, keeps+3000).Draw(t, "goodwill"), s.next("gw")
	body := map[string]any{"amount": amount, "currency": "EUR", "reason": "goodwill"}
	if amount > keeps {
		s.step(t, "staff give %d back, more than the %d the booking keeps (key %s): refused", amount, keeps, key)
		s.do(t, s.w.finance, http.MethodPost, "/api/v1/staff/bookings/"+s.id+"/refunds", key, body, http.StatusConflict)
		return
	}
	who := rapid.SampledFrom([]string{"the desk", "finance"}).Draw(t, "who gives it")
	s.step(t, "%s gives %d back of the %d the booking keeps (key %s); the provider %s refunds", who, amount, keeps, key,
		s.provider(t, "the provider then"))
	token := s.desk
	if who == "finance" {
		token = s.w.finance
	}
	s.do(t, token, http.MethodPost, "/api/v1/staff/bookings/"+s.id+"/refunds", key, body, http.StatusOK)
	// Asked by the desk, its desk parts are handed over at once; finance is not at the desk, so
	// they wait there to be handed over.
	s.m.ask(amount, false, who == "finance")
}

func (s *flowStory) amendsUp(t *rapid.T) {
	key := s.next("up")
	res := s.do(t, s.desk, http.MethodPost, "/api/v1/staff/bookings/"+s.id+"/amendments", key,
		map[string]any{"checkOut": s.m.checkOut.AddDays(1)}, http.StatusOK)
	a := res.Body["amendment"].(map[string]any)
	require.EqualValues(t, flowRate, a["difference"], res.Raw)
	if !slices.ContainsFunc(s.m.kept, func(p *flowPay) bool { return !p.desk }) {
		// Paid at the desk alone: applied at once, its difference due there.
		s.step(t, "the desk adds a night (key %s): paid at the desk, it is due there", key)
		require.Equal(t, string(domain.AmendmentApplied), a["status"], res.Raw)
		s.m.price, s.m.checkOut = s.m.price+flowRate, s.m.checkOut.AddDays(1)
		return
	}
	require.Equal(t, string(domain.AmendmentBalanceDue), a["status"], res.Raw)
	id := int64(a["id"].(float64))
	if s.resumed || rapid.Bool().Draw(t, "the balance is paid") {
		pi := s.next("pi")
		s.step(t, "the desk adds a night (key %s); the guest pays its balance, %d (%s)", key, flowRate, pi)
		s.paid(t, pi, flowRate, id)
		s.m.keepPayment(s.m.payment(pi, flowRate, false))
		s.m.price, s.m.checkOut = s.m.price+flowRate, s.m.checkOut.AddDays(1)
		return
	}
	s.step(t, "the desk adds a night (key %s); its balance lapses unpaid", key)
	deadline := time.Now().Add(flowHoldTTL + 30*time.Second)
	for {
		var list struct {
			Amendments []domain.Amendment `json:"amendments"`
		}
		s.read(t, s.w.finance, "/api/v1/staff/bookings/"+s.id+"/amendments", &list)
		i := slices.IndexFunc(list.Amendments, func(a domain.Amendment) bool { return a.ID == id })
		if i >= 0 && list.Amendments[i].Status == domain.AmendmentLapsed {
			return
		}
		require.True(t, time.Now().Before(deadline), "amendment %d of booking %s never lapsed", id, s.id)
		time.Sleep(200 * time.Millisecond)
	}
}

func (s *flowStory) amendsDown(t *rapid.T) {
	refund := min(flowRate-flowRate*flowFeePercent/100, max(s.m.keeps()-(s.m.price-flowRate), 0))
	key, mode := s.next("down"), "nothing to"
	if refund > 0 {
		mode = s.provider(t, "the provider then")
	}
	s.step(t, "the desk takes a night off (key %s): %d back; the provider %s refunds", key, refund, mode)
	res := s.do(t, s.desk, http.MethodPost, "/api/v1/staff/bookings/"+s.id+"/amendments", key,
		map[string]any{"checkOut": s.m.checkOut.AddDays(-1)}, http.StatusOK)
	a := res.Body["amendment"].(map[string]any)
	require.Equal(t, string(domain.AmendmentApplied), a["status"], res.Raw)
	require.EqualValues(t, refund, a["refund"], "the amendment's refund: %s", res.Raw)
	s.m.price, s.m.checkOut, s.m.lowered = s.m.price-flowRate, s.m.checkOut.AddDays(-1), s.m.lowered+refund
	s.m.ask(refund, false, false) // asked by the desk: its desk parts are handed over at once
}

// operator retries (with the provider as mode says from now on) or resolves by hand every refund
// step waiting for an operator, as finance does through the API.
func (s *flowStory) operator(t *rapid.T, action, mode string) {
	key := s.next("op")
	s.step(t, "finance %s the stuck refunds (key %s)%s", map[string]string{"retry": "retries", "resolve": "resolves"}[action], key,
		map[bool]string{true: "; the provider " + mode + " refunds"}[mode != ""])
	s.do(t, s.w.finance, http.MethodPost, "/api/v1/staff/bookings/"+s.id+"/refund/"+action, key,
		map[string]any{"reason": action + " it"}, http.StatusOK)
	for _, r := range s.m.steps(stepStuck) {
		if action == "retry" {
			r.failures = 0
			s.m.send(r)
		} else {
			s.m.give(r, true)
		}
	}
}

func (s *flowStory) providerSettles(t *rapid.T) {
	pending := s.m.steps(stepPending)
	r := pending[rapid.IntRange(0, len(pending)-1).Draw(t, "settled refund")]
	s.settleRefund(t, r, rapid.Bool().Draw(t, "it succeeds"))
}

// settleRefund has the provider settle a pending refund, and send its webhook.
func (s *flowStory) settleRefund(t *rapid.T, r *flowRefund, ok bool) {
	id := s.w.provider.settle(r.pay.id, r.amount, ok)
	require.NotEmpty(t, id, "the provider has no pending refund of %d of %s", r.amount, r.pay.id)
	status := map[bool]string{true: payments.RefundSucceeded, false: payments.RefundFailed}[ok]
	s.step(t, "the provider's pending refund %s of %d %s", id, r.amount, status)
	s.webhook(t, payments.EventPayload("evt_"+id, "refund.updated", map[string]any{"id": id, "object": "refund",
		"amount": r.amount, "currency": "eur", "status": status, "payment_intent": r.pay.id,
		"metadata": map[string]string{"bookingId": s.id}}, time.Now()))
	if ok {
		s.m.give(r, false)
	} else {
		s.m.failed(r)
	}
}

// deskHandsOver has the story's desk hand over one refund waiting there (issue 39): its attempt,
// pending and never the provider's, is found in the booking's payments and handed over; the saga
// is told and goes on (a cancel to its next part, or REFUNDED).
func (s *flowStory) deskHandsOver(t *rapid.T) {
	waiting := s.m.steps(stepAtDesk)
	s.handOver(t, waiting[rapid.IntRange(0, len(waiting)-1).Draw(t, "handed over refund")])
}

// handOver has the desk hand over refund step r, waiting at the desk.
func (s *flowStory) handOver(t *rapid.T, r *flowRefund) {
	var seen struct {
		Refunds []db.RefundAttempt `json:"refunds"`
	}
	s.read(t, s.desk, "/api/v1/staff/bookings/"+s.id+"/payments", &seen)
	var ids []string
	for _, a := range seen.Refunds {
		if a.Status == "pending" && a.Method != domain.MethodProvider && a.PaymentID == r.pay.id && a.Amount == r.amount {
			ids = append(ids, a.ID)
		}
	}
	require.Len(t, ids, 1, "the refund of %d of %s waiting at the desk, among booking %s's refunds: %+v", r.amount, r.pay.id,
		s.id, seen.Refunds)
	s.step(t, "the desk hands over the %d of %s waiting there (refund %s)", r.amount, r.pay.id, ids[0])
	res := s.do(t, s.desk, http.MethodPost, "/api/v1/staff/bookings/"+s.id+"/refunds/hand-over", "",
		map[string]any{"refundId": ids[0], "note": "the guest came by"}, http.StatusOK)
	require.Equal(t, "succeeded", res.Body["status"], res.Raw)
	s.m.give(r, false)
}

// workflowLost terminates the booking's workflow; the invariant checker finds it and, repairing,
// resumes it: the resumed run gives back what is owed, under the provider as mode says.
func (s *flowStory) workflowLost(t *rapid.T) {
	mode := s.provider(t, "meanwhile the provider")
	s.step(t, "the workflow is lost (terminated); the checker resumes it; the provider %s refunds", mode)
	ctx := context.Background()
	require.NoError(t, s.w.sys.Temporal.TerminateWorkflow(ctx, s.id, "", "lost"))
	deadline := time.Now().Add(time.Minute)
	for !s.found(t, false, domain.CheckNoWorkflow) {
		require.True(t, time.Now().Before(deadline), "the checker never found booking %s without its workflow", s.id)
		time.Sleep(250 * time.Millisecond)
	}
	require.True(t, s.found(t, true, domain.CheckNoWorkflow), "the checker resumes booking %s", s.id)
	s.resumed = true
	for _, r := range s.m.refunds {
		r.failures = 0
		if r.state == stepStuck {
			s.m.send(r)
		}
	}
}

// found runs the invariant checker and reports whether it found check on the story's booking
// (and, repairing, repaired it).
func (s *flowStory) found(t *rapid.T, repair bool, check string) bool {
	report, err := s.w.checks.RunChecks(context.Background(), activities.CheckInput{Repair: repair})
	require.NoError(t, err)
	f, ok := findingsOf(report, s.id)[check]
	return ok && (!repair || f.Repaired != "")
}

// windDown gives every refund an outcome, as the provider, finance and the desk would in the end:
// the provider pays from now on, settles what it left pending, finance retries or resolves
// what waits for an operator, and the desk hands over what waits there.
func (s *flowStory) windDown(t *rapid.T) {
	for round := 0; len(s.m.steps(stepPending))+len(s.m.steps(stepStuck))+len(s.m.steps(stepAtDesk)) > 0; round++ {
		require.Less(t, round, 5, "booking %s's refunds never end", s.id)
		if s.m.mode != providerPays {
			s.step(t, "the provider pays refunds from now on")
			s.m.mode = providerPays
			s.w.provider.setMode(s.id, providerPays, false)
		}
		for _, r := range s.m.steps(stepPending) {
			s.settleRefund(t, r, true)
		}
		s.settle(t)
		if len(s.m.steps(stepStuck)) > 0 {
			s.operator(t, rapid.SampledFrom([]string{"retry", "resolve"}).Draw(t, "in the end finance"), "")
			s.settle(t)
		}
		for len(s.m.steps(stepAtDesk)) > 0 { // each hand-over may send a cancel's next part there
			s.handOver(t, s.m.steps(stepAtDesk)[0])
			s.settle(t)
		}
	}
}

// provider draws what the provider does with the booking's refunds from now on, and, one time in
// four, that it loses its reply to the next one it makes or declines: the attempt fails after the
// provider's commit, and is asked again under its key.
func (s *flowStory) provider(t *rapid.T, label string) string {
	s.m.mode = rapid.SampledFrom([]string{providerPays, providerDeclines, providerStalls}).Draw(t, label)
	lose := rapid.IntRange(0, 3).Draw(t, "its next reply is lost (0)") == 0
	s.w.provider.setMode(s.id, s.m.mode, lose)
	return s.m.mode + map[bool]string{true: " (its first reply lost)"}[lose]
}

func (s *flowStory) deskKept() []string {
	var ids []string
	for _, p := range s.m.kept {
		if p.desk && p.keep > 0 {
			ids = append(ids, p.id)
		}
	}
	return ids
}

func (s *flowStory) tookAtDesk() bool {
	return slices.ContainsFunc(s.m.pays, func(p *flowPay) bool { return p.desk })
}

func (s *flowStory) next(prefix string) string {
	s.seq++
	return fmt.Sprintf("%s-flow-%d-%d", prefix, s.n, s.seq)
}

func (s *flowStory) step(t *rapid.T, format string, args ...any) {
	line := fmt.Sprintf("%d. %s", len(s.steps)+1, fmt.Sprintf(format, args...))
	s.steps = append(s.steps, line)
	t.Logf("story %d: %s", s.n, line)
}

// paid has the provider take a payment of the booking (of an amendment's balance when amendment
// is set) and send its webhook.
func (s *flowStory) paid(t *rapid.T, pi string, amount, amendment int64) {
	s.w.provider.capture(s.id, pi, amount)
	payload := testsuite.PaymentEvent("evt_"+pi, pi, s.id, amount, "EUR")
	if amendment > 0 {
		payload = testsuite.BalancePaymentEvent("evt_"+pi, pi, s.id, amendment, amount, "EUR")
	}
	s.webhook(t, payload)
}

func (s *flowStory) webhook(t *rapid.T, payload []byte) {
	res := s.w.sys.Webhook(flowTB{s.w.t, t}, payload, time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
}

func (s *flowStory) status(t *rapid.T) domain.Status {
	var b struct {
		Status domain.Status `json:"status"`
	}
	s.read(t, s.w.finance, "/api/v1/staff/bookings/"+s.id, &b)
	return b.Status
}

// do sends a request with token under an Idempotency-Key (none when key is empty) and wants
// status back.
func (s *flowStory) do(t *rapid.T, token, method, path, key string, body any, want int) testsuite.Response {
	headers := map[string]string{"Authorization": "Bearer " + token}
	if key != "" {
		headers["Idempotency-Key"] = key
	}
	res := s.w.sys.Do(flowTB{s.w.t, t}, method, path, headers, body)
	require.Equal(t, want, res.Status, "%s %s: %s", method, path, res.Raw)
	return res
}

// read GETs path and decodes its answer into out.
func (s *flowStory) read(t *rapid.T, token, path string, out any) {
	res := s.do(t, token, http.MethodGet, path, "", nil, http.StatusOK)
	require.NoError(t, json.Unmarshal([]byte(res.Raw), out))
}

// flowTB is the test as a testing.TB whose failures fail the story, for the suite's helpers
// that take one (System.Do, System.Webhook, System.StartWorker).
type flowTB struct {
	*testing.T
	rt *rapid.T
}

func (f flowTB) Helper()                           {}
func (f flowTB) Errorf(format string, args ...any) { f.rt.Errorf(format, args...) }
func (f flowTB) Fatalf(format string, args ...any) { f.rt.Fatalf(format, args...) }
func (f flowTB) FailNow()                          { f.rt.FailNow() }
