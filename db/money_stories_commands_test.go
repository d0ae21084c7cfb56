package db_test

import (
	"fmt"
	"maps"
	"slices"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// The commands of TestMoneyStoriesAgreeWithTheirModel's stories (money_stories_test.go): each
// runs one of the store's money paths on the story's booking and moves the model as it should.

// Which payments each command may act on.
var (
	reversible = func(p *storyPayment) bool {
		return p.kept && p.method != domain.MethodProvider && p.keepLeft > 0 && p.partsLeft > 0
	}
	owing = func(p *storyPayment) bool { return p.kept && len(p.asks) > 0 }
	// a payment the booking does not keep, some of it given back (by hand): the workflow's refund
	// of it whole is more than is left
	partlyBack = func(p *storyPayment) bool { return !p.kept && p.left() > 0 && p.left() < p.amount }
)

// storyCommand is a command of a story, and when the booking's state allows it.
type storyCommand struct {
	can func() bool
	run func(t *rapid.T)
}

// commands are the story's commands, by name: a story draws among those its booking's state allows.
func (s *moneyStory) commands() map[string]storyCommand {
	held := func() bool { return s.b.Status == domain.StatusHold }
	used := func() bool { return s.b.Status == domain.StatusConfirmed }
	refundable := func(p *storyPayment) bool {
		return owing(p) || (!p.kept && p.left() > 0 && s.b.Status != domain.StatusHold)
	}
	manual := func(p *storyPayment) bool { return p.left() > 0 && (!p.kept || s.b.Status != domain.StatusRefunded) }
	return map[string]storyCommand{
		"providerPaysOnTime": {can: func() bool { return held() && s.due() > 0 }, run: func(t *rapid.T) {
			due := s.due()
			id := s.provider(t, due)
			b, err := s.d.Store.Confirm(s.ctx, s.b.ID, &domain.Payment{ID: id, Amount: due, Currency: "EUR"})
			require.NoError(t, err)
			require.Equal(t, domain.StatusConfirmed, b.Status)
			s.b = b
			s.pay(id, domain.MethodProvider, due, true)
		}},
		"providerPaysAWrongAmount": {can: func() bool { return held() && s.due() > 0 }, run: func(t *rapid.T) {
			due := s.due()
			amount := due + rapid.Int64Range(-due+1, 5000).Filter(func(d int64) bool { return d != 0 }).Draw(t, "off by")
			id := s.provider(t, amount)
			_, err := s.d.Store.Confirm(s.ctx, s.b.ID, &domain.Payment{ID: id, Amount: amount, Currency: "EUR"})
			require.ErrorIs(t, err, domain.ErrConflict)
			s.pay(id, domain.MethodProvider, amount, false)
		}},
		"providerPaysTwice": {can: func() bool { return used() }, run: func(t *rapid.T) {
			s.pay(s.provider(t, s.b.Price.Total), domain.MethodProvider, s.b.Price.Total, false)
		}},
		"deskTakesPayment": {can: func() bool { return s.b.Status.HoldsInventory() && s.due() > 0 }, run: func(t *rapid.T) {
			amount := rapid.Int64Range(1, s.due()).Draw(t, "desk amount")
			key := s.key(t, "desk")
			b, err := s.d.Store.TakeDeskPayment(s.ctx, deskPayment(s.b.ID, key, amount))
			require.NoError(t, err)
			s.b = b
			s.pay(domain.DeskPaymentID(s.b.ID, key), domain.MethodCash, amount, true)
			s.keys = append(s.keys, storyKey{key: key, kind: db.CommandDeskPayment, amount: amount, method: domain.MethodCash})
		}},
		"deskReverses": {can: func() bool { return (held() || used()) && s.model().Kept > 0 && len(s.payments(reversible)) > 0 }, run: func(t *rapid.T) {
			p := s.pick(t, "reverse", reversible)
			amount := min(p.keepLeft, p.partsLeft, s.model().Kept)
			k := storyKey{key: s.key(t, "rev"), kind: db.RefundReversal, amount: amount,
				parts: []domain.Payment{{ID: p.id, Amount: amount, Currency: "EUR"}}}
			_, b, err := s.d.Store.StartStaffRefund(s.ctx, s.staffRefund(k, "entered twice", "desk-1"))
			require.NoError(t, err)
			s.b = b
			k.drawn = k.parts
			s.keys = append(s.keys, k)
			p.keepLeft, p.partsLeft, s.reversed = p.keepLeft-amount, p.partsLeft-amount, s.reversed+amount
			s.owe(p, &storyAsk{step: db.StaffRefundStep(k.key, 0, p.id), amount: amount, staff: true})
			s.attempt(t, p, amount, "succeeded")
		}},
		"priceSetByHand": {can: func() bool { return held() && len(s.kept) == 0 }, run: func(t *rapid.T) {
			total := rapid.Int64Range(1000, 40000).Draw(t, "price")
			b, err := s.d.Store.ChangePrice(s.ctx, db.PriceChange{BookingID: s.b.ID, Total: total, Currency: "EUR",
				Reason: "regular", Actor: "desk-1"})
			require.NoError(t, err)
			s.b = b
		}},
		"goodwillRefund": {can: func() bool {
			return used() && len(s.payments(func(p *storyPayment) bool { return p.kept && p.partsLeft > 0 })) > 0
		}, run: func(t *rapid.T) {
			s.goodwill(t, rapid.Int64Range(1, s.model().Kept+3000).Draw(t, "goodwill"))
		}},
		"refundAttempt": {can: func() bool { return len(s.payments(refundable)) > 0 }, run: func(t *rapid.T) {
			p := s.pick(t, "refund", refundable)
			amount := p.left() // of money the booking does not keep: all that is left
			s.attempt(t, p, amount, rapid.SampledFrom([]string{"failed", "succeeded", "pending"}).Draw(t, "outcome"))
		}},
		"duplicateRefundedWhole": {can: func() bool { return len(s.payments(partlyBack)) > 0 }, run: func(t *rapid.T) {
			// the workflow refunds a payment it does not keep whole, after finance gave some of it back
			p := s.pick(t, "refund whole", partlyBack)
			s.attempt(t, p, p.amount, "succeeded")
		}},
		"providerSettles": {can: func() bool { return len(s.pending) > 0 }, run: func(t *rapid.T) {
			i := rapid.IntRange(0, len(s.pending)-1).Draw(t, "pending")
			a := s.pending[i]
			s.pending = append(s.pending[:i], s.pending[i+1:]...)
			s.settlePending(t, a, rapid.Bool().Draw(t, "succeeded"))
		}},
		"resolvedByHand": {can: func() bool { return len(s.payments(owing)) > 0 }, run: func(t *rapid.T) {
			p := s.pick(t, "resolve", owing)
			a := p.asks[0]
			require.NoError(t, s.d.Store.RecordResolvedRefund(s.ctx, db.RefundAttempt{ID: s.b.ID + "/" + a.step + "/0",
				BookingID: s.b.ID, PaymentID: p.id, Amount: a.amount, Currency: "EUR", Reason: "made by hand", RecordedBy: "op-1"}))
			p.asks, p.owed, p.back, p.byHand = p.asks[1:], p.owed-a.amount, p.back+a.amount, p.byHand+a.amount
			if !a.staff {
				p.partsLeft -= a.amount
			}
		}},
		"financeRefundsByHand": {can: func() bool { return len(s.payments(manual)) > 0 }, run: func(t *rapid.T) {
			p := s.pick(t, "manual", manual)
			amount := rapid.Int64Range(1, p.left()+500).Draw(t, "manual amount")
			_, err := s.d.Store.RecordManualRefund(s.ctx, db.ManualRefund{PaymentID: p.id, Key: s.next("m"), Amount: amount,
				Currency: "EUR", Method: domain.MethodOther, Reference: "bank 1", Reason: "paid twice", Actor: "finance-1"})
			if p.kept || amount > p.left() {
				require.ErrorIs(t, err, domain.ErrConflict, "a manual refund of %d of %s (kept %v, %d left)", amount, p.id, p.kept, p.left())
				return
			}
			require.NoError(t, err)
			p.back, p.byHand = p.back+amount, p.byHand+amount
		}},
		"cancelWithRefund": {can: func() bool { return used() && s.balance == nil && s.model().Kept > 0 }, run: func(t *rapid.T) {
			policy := rapid.Int64Range(0, s.model().Kept+2000).Draw(t, "policy refund")
			refundDue := func(domain.Booking) (int64, error) { return policy, nil }
			var b domain.Booking
			var err error
			if rapid.Bool().Draw(t, "staff decide the refund, under a key") {
				k := storyKey{key: s.key(t, "cancel"), kind: db.CommandCancelRefund, amount: policy}
				c, _ := s.command(k)
				b, err = s.d.Store.StartCancelRefund(s.ctx, c, refundDue)
				s.keys = append(s.keys, k)
			} else { // the cancellation policy's refund, keyed by the booking's workflow, not in the key space
				b, err = s.d.Store.StartRefund(s.ctx, s.b.ID, nil, refundDue)
			}
			require.NoError(t, err)
			require.Equal(t, domain.StatusRefunding, b.Status)
			s.b = b
			s.ask(min(policy, s.model().Kept), func(_ int, paymentID string) string { return db.BookingRefundStep(b, paymentID) })
		}},
		"refundFinished": {can: func() bool { return s.b.Status == domain.StatusRefunding && s.model().Owed+s.model().Refunding == 0 }, run: func(t *rapid.T) {
			b, err := s.d.Store.FinishRefund(s.ctx, s.b.ID)
			require.NoError(t, err)
			s.b = b
		}},
		"amendDown": {can: func() bool { return used() && s.balance == nil && s.b.Stay.Nights() >= 2 }, run: func(t *rapid.T) {
			kept := s.model().Kept
			a := s.amend(t, -1)
			require.Equal(t, domain.AmendmentApplied, a.Status)
			require.LessOrEqual(t, a.Refund, kept)
			s.lowered += a.Refund
			s.ask(a.Refund, func(part int, paymentID string) string {
				if part == 0 {
					return fmt.Sprintf("amendment-%d", a.ID)
				}
				return fmt.Sprintf("amendment-%d-%s", a.ID, paymentID)
			})
		}},
		"amendUp": {can: func() bool { return used() && s.balance == nil && s.b.Stay.CheckOut.Before(dec14) }, run: func(t *rapid.T) {
			a := s.amend(t, 1)
			if a.Status == domain.AmendmentBalanceDue {
				s.balance = &a
			}
		}},
		"balancePaid": {can: func() bool { return used() && s.balance != nil }, run: func(t *rapid.T) {
			id := s.provider(t, s.balance.Difference)
			_, b, err := s.d.Store.SettleAmendment(s.ctx, s.b.ID, s.balance.ID, domain.Payment{ID: id, Amount: s.balance.Difference,
				Currency: "EUR"})
			require.NoError(t, err)
			s.b = b
			s.pay(id, domain.MethodProvider, s.balance.Difference, true)
			s.balance = nil
		}},
		"balanceLapsed": {can: func() bool { return s.balance != nil }, run: func(t *rapid.T) {
			_, b, err := s.d.Store.LapseAmendment(s.ctx, s.b.ID, s.balance.ID, "not paid in time")
			require.NoError(t, err)
			s.b, s.balance = b, nil
		}},
		"keyAgain":               {can: func() bool { return len(s.keys) > 0 }, run: s.keyAgain},
		"workflowLostAndResumed": {can: func() bool { return len(s.payments(owing)) > 0 || len(s.pending) > 0 }, run: s.resume},
		"staffReadsTheMoney": {can: func() bool { return true }, run: func(t *rapid.T) { // always possible: a story may end in any state
			_, err := s.d.Store.BookingMoneySummary(s.ctx, s.b)
			require.NoError(t, err)
		}},
	}
}

// amend moves the check-out by days, under a key of the booking's key space.
func (s *moneyStory) amend(t *rapid.T, days int) domain.Amendment {
	k := storyKey{key: s.key(t, "amend"), kind: db.CommandAmendment, change: domain.Change{CheckOut: s.b.Stay.CheckOut.AddDays(days)}}
	a, b, err := s.d.Store.Amend(s.ctx, amendParams(s.b, k.key, k.change))
	require.NoError(t, err)
	k.amendment = a.ID
	s.keys = append(s.keys, k)
	s.b = b
	return a
}

// play runs up to 20 commands, each drawn among those the booking's state allows, and checks
// the ledger against the model after each.
func (s *moneyStory) play(t *rapid.T) {
	commands := s.commands()
	names := slices.Sorted(maps.Keys(commands))
	for range rapid.IntRange(0, 20).Draw(t, "commands") {
		var possible []string
		for _, name := range names {
			if commands[name].can() {
				possible = append(possible, name)
			}
		}
		name := rapid.SampledFrom(possible).Draw(t, "command")
		commands[name].run(t)
		s.checkLedger(t)
	}
}

// resume reads what a workflow taking the booking up again would give back (a resumed booking's
// staff and amendment refunds, GiveStaffRefunds', a refund recovery's parts), and checks it is
// what the model owes, step by step: nothing given back is asked again, nothing owed is left out.
func (s *moneyStory) resume(t *rapid.T) {
	want := map[string]domain.Payment{}
	for _, p := range s.payments(func(p *storyPayment) bool { return p.kept }) {
		for _, a := range p.asks {
			want[a.step] = domain.Payment{ID: p.id, Amount: a.amount, Currency: "EUR"}
		}
	}
	for _, a := range s.pending {
		if a.pay.kept {
			want[a.ask.step] = domain.Payment{ID: a.pay.id, Amount: a.ask.amount, Currency: "EUR"}
		}
	}
	got := map[string]domain.Payment{}
	staff, err := s.d.Store.UnfinishedStaffRefunds(s.ctx, s.b.ID)
	require.NoError(t, err)
	for _, o := range staff {
		got[o.Step] = o.Payment
	}
	amended, err := s.d.Store.UnfinishedAmendmentRefunds(s.ctx, s.b.ID)
	require.NoError(t, err)
	for _, a := range amended {
		got[a.Step] = a.Payment
	}
	s.refresh(t)
	if s.b.Status == domain.StatusRefunding {
		progress, err := s.d.Store.BookingRefundProgress(s.ctx, s.b, "EUR")
		require.NoError(t, err)
		for _, part := range progress.Parts[progress.Part:] {
			// The saga goes on from the first part not given back; a later one given back is
			// answered from its record when asked again (BeginRefundAttempt), never sent.
			step := db.BookingRefundStep(s.b, part.ID)
			st, err := s.d.Store.RefundStep(s.ctx, s.b.ID, step)
			require.NoError(t, err)
			if !st.Given {
				got[step] = part
			}
		}
	}
	require.Equal(t, want, got, "what a resumed workflow of booking %s gives back, by step", s.b.ID)
}
