package db_test

import (
	"slices"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// The key space of TestMoneyStoriesAgreeWithTheirModel's stories (issue 34: "every command that
// moves money carries one idempotency key ... unique per booking in the database. The same key
// with another body is 422, everywhere"). The model keeps the key of every money command the
// store accepted, with what it moved; a command keyAgain sends one of them again through the
// store function the API's route reaches (after MoneyCommandSeen, as the workflow and the API
// ask it first): the same command is answered as the first and moves nothing, another body or
// another kind of command is ErrIdempotencyMismatch and moves nothing. A command the store
// refused moved nothing, so its key is free, and a later command may take it.

// storyKey is a money command the store accepted, under its key: what the model needs to send
// it again.
type storyKey struct {
	key, kind string
	amount    int64            // a desk payment's, a staff refund's, a cancel's refund
	method    string           // a desk payment's
	parts     []domain.Payment // a staff refund's as asked (nil: the database drew them)
	drawn     []domain.Payment // a staff refund's as recorded
	change    domain.Change    // an amendment's
	amendment int64            // an amendment's id
}

// moneyKinds are the kinds of command that claim a key in the booking's key space.
var moneyKinds = []string{db.CommandDeskPayment, db.RefundGoodwill, db.RefundReversal, db.CommandCancelRefund,
	db.CommandAmendment}

// key is the key of a new money command: a refused command's, free again, or a new one.
func (s *moneyStory) key(t *rapid.T, prefix string) string {
	if len(s.free) > 0 && rapid.Bool().Draw(t, "a refused command's key") {
		k := s.free[len(s.free)-1]
		s.free = s.free[:len(s.free)-1]
		return k
	}
	return s.next(prefix)
}

func (s *moneyStory) staffRefund(k storyKey, reason, actor string) db.StaffRefund {
	return db.StaffRefund{ID: db.StaffRefundID(s.b.ID, k.key), BookingID: s.b.ID, Kind: k.kind, Amount: k.amount,
		Currency: "EUR", Reason: reason, Actor: actor, Parts: k.parts}
}

// command is k as the workflow and the API ask MoneyCommandSeen of it (an amendment's route does
// not ask it: Amend answers its key alone).
func (s *moneyStory) command(k storyKey) (db.MoneyCommand, bool) {
	switch k.kind {
	case db.CommandDeskPayment:
		return db.DeskPaymentCommand(db.DeskPayment{BookingID: s.b.ID, Key: k.key, Amount: k.amount, Currency: "EUR",
			Method: k.method}), true
	case db.CommandCancelRefund:
		return db.CancelRefundCommand(s.b.ID, k.key, k.amount, "EUR", "desk-2"), true
	case db.CommandAmendment:
		return db.MoneyCommand{}, false
	}
	return db.StaffRefundCommand(s.staffRefund(k, "", "desk-2")), true
}

// send sends k through the store (another actor, reason and note: a retry may word them
// again), and checks that a command answered as the first returns the first's record.
func (s *moneyStory) send(t *rapid.T, k storyKey) (domain.Booking, error) {
	switch k.kind {
	case db.CommandDeskPayment:
		return s.d.Store.TakeDeskPayment(s.ctx, db.DeskPayment{BookingID: s.b.ID, Key: k.key, Amount: k.amount,
			Currency: "EUR", Method: k.method, Note: "sent again", TakenBy: "desk-2"})
	case db.CommandCancelRefund:
		c, _ := s.command(k)
		return s.d.Store.StartCancelRefund(s.ctx, c, func(domain.Booking) (int64, error) { return k.amount, nil })
	case db.CommandAmendment:
		a, b, err := s.d.Store.Amend(s.ctx, amendParams(s.b, k.key, k.change))
		if err == nil {
			require.Equal(t, k.amendment, a.ID, "the amendment answered under key %s", k.key)
		}
		return b, err
	}
	r, b, err := s.d.Store.StartStaffRefund(s.ctx, s.staffRefund(k, "story, asked again", "desk-2"))
	if err == nil {
		require.Equal(t, k.drawn, r.Parts, "the parts of the refund answered under key %s", k.key)
	}
	return b, err
}

// keyAgain sends a command under a key the booking holds: the same command, the same kind with
// another body, or another kind of command.
func (s *moneyStory) keyAgain(t *rapid.T) {
	k := s.keys[rapid.IntRange(0, len(s.keys)-1).Draw(t, "key")]
	again := k
	how := rapid.SampledFrom([]string{"the same", "another body", "another command"}).Draw(t, "sent again as")
	switch how {
	case "another body":
		again = s.otherBody(t, k)
	case "another command":
		again = s.otherCommand(t, k)
	}
	s.refresh(t)
	before := s.b
	c, asks := s.command(again)
	if asks {
		seen, err := s.d.Store.MoneyCommandSeen(s.ctx, c)
		if how == "the same" {
			require.NoError(t, err, "MoneyCommandSeen of %s %s again", k.kind, k.key)
			require.True(t, seen, "MoneyCommandSeen of %s %s again", k.kind, k.key)
		} else {
			require.ErrorIs(t, err, domain.ErrIdempotencyMismatch, "MoneyCommandSeen of a %s under %s key %s", again.kind,
				k.kind, k.key)
		}
	}
	b, err := s.send(t, again)
	if how == "the same" {
		require.NoError(t, err, "%s %s sent again", k.kind, k.key)
		require.Equal(t, before, b, "the booking answered to %s %s sent again", k.kind, k.key)
	} else {
		require.ErrorIs(t, err, domain.ErrIdempotencyMismatch, "a %s (%d) under %s key %s (%d)", again.kind, again.amount,
			k.kind, k.key, k.amount)
	}
	s.refresh(t)
	require.Equal(t, before, s.b, "booking %s after %s key %s was sent again: nothing moves", s.b.ID, k.kind, k.key)
}

// otherBody is k with another body: another amount (or a desk payment's method), another change.
func (s *moneyStory) otherBody(t *rapid.T, k storyKey) storyKey {
	switch k.kind {
	case db.CommandAmendment:
		k.change.CheckOut = k.change.CheckOut.AddDays(rapid.SampledFrom([]int{-2, -1, 1, 2}).Draw(t, "another check-out"))
		return k
	case db.CommandDeskPayment:
		if rapid.Bool().Draw(t, "another method") {
			k.method = domain.MethodCardTerminal
			return k
		}
	}
	k.amount = rapid.Int64Range(1, k.amount+5000).Filter(func(a int64) bool { return a != k.amount }).Draw(t, "another amount")
	k.parts = nil // a goodwill refund the database draws
	if k.kind == db.RefundReversal {
		k.parts = []domain.Payment{{ID: k.drawn[0].ID, Amount: k.amount, Currency: "EUR"}}
	}
	return k
}

// otherCommand is another kind of command than k's, under its key.
func (s *moneyStory) otherCommand(t *rapid.T, k storyKey) storyKey {
	kind := rapid.SampledFrom(slices.DeleteFunc(slices.Clone(moneyKinds), func(kind string) bool { return kind == k.kind })).
		Draw(t, "another command")
	o := storyKey{key: k.key, kind: kind, amount: rapid.Int64Range(1, 40000).Draw(t, "its amount"), method: domain.MethodCash,
		change: domain.Change{CheckOut: s.b.Stay.CheckOut.AddDays(rapid.SampledFrom([]int{-1, 1}).Draw(t, "its check-out"))}}
	if kind == db.RefundReversal {
		id := "pi_none"
		if len(s.pays) > 0 {
			id = s.pays[len(s.pays)-1].id
		}
		o.parts = []domain.Payment{{ID: id, Amount: o.amount, Currency: "EUR"}}
	}
	return o
}
