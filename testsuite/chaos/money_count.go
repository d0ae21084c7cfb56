package chaos

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// The money count: for every booking, what the guest paid (at the provider and at the desk)
// less what was given back (by the provider and by the desk) is what the booking keeps by its
// ledger (db.Store.LedgerMoney); the ledger's refunds of each payment are the provider's (or
// the desk's) own; nothing is given back beyond what a payment brought; once settled nothing
// is owed or refunding; and what the booking keeps is what the guest owes by what the clients
// were told: its price less the staff refunds answered 200 while it holds its units, nothing
// once it gave them back (the hotels and the venue refund cancellations in full).

// MoneyTally is the money the runs moved, as the provider, the desk and the ledger count it.
type MoneyTally struct {
	Bookings     int   // bookings whose money was counted
	WithMoney    int   // of them, those any money went through
	ProviderIn   int64 // minor units guests paid at the provider
	DeskIn       int64 // and at the desk
	ProviderBack int64 // minor units the provider gave back
	DeskBack     int64 // and the desk
	Kept         int64 // what the bookings keep by their ledgers
	Mismatches   int   // bookings whose money did not add up (each once, whenever it appeared)
}

// moneyBook is what the money count carries from one run's count to the next: it counts again
// only the bookings whose money may have moved since.
type moneyBook struct {
	seenEntry int64                       // the last ledger entry counted
	provider  map[string][2]int64         // payment intent -> paid, refunded when last counted
	figures   map[string]bookingMoney     // per booking, the last count
	bad       map[string][]domain.Finding // bookings whose money does not add up, now
	everBad   map[string]bool
}

type bookingMoney struct{ providerIn, deskIn, providerBack, deskBack, kept int64 }

func newMoneyBook() *moneyBook {
	return &moneyBook{provider: map[string][2]int64{}, figures: map[string]bookingMoney{},
		bad: map[string][]domain.Finding{}, everBad: map[string]bool{}}
}

// tally sums the last count of every booking.
func (mb *moneyBook) tally() MoneyTally {
	t := MoneyTally{Bookings: len(mb.figures), Mismatches: len(mb.everBad)}
	for _, f := range mb.figures {
		if f.providerIn+f.deskIn > 0 {
			t.WithMoney++
		}
		t.ProviderIn += f.providerIn
		t.DeskIn += f.deskIn
		t.ProviderBack += f.providerBack
		t.DeskBack += f.deskBack
		t.Kept += f.kept
	}
	return t
}

// countMoney counts the money of every booking that may have moved since the last count and
// returns how many bookings' money does not add up now, with what is wrong. h.l.mu is held.
func (h *harness) countMoney(ctx context.Context, stored outcomes) (int, []domain.Finding, error) {
	mb := h.money
	paidAt, refundedAt := h.provider.Paid(), h.provider.Refunded()
	// What may have moved: new ledger entries, the provider's figures, what the clients were
	// told, and the bookings that did not add up.
	var last int64
	rows, err := h.store.Pool().Query(ctx, `SELECT DISTINCT booking_id, (SELECT max(id) FROM money_ledger)
		FROM money_ledger WHERE id > $1`, mb.seenEntry)
	if err != nil {
		return 0, nil, err
	}
	check := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id, &last); err != nil {
			rows.Close()
			return 0, nil, err
		}
		check[id] = true
	}
	if err := rows.Err(); err != nil {
		return 0, nil, err
	}
	byBooking := map[string][]string{} // booking -> its provider payments
	for pi, p := range h.l.paid {
		byBooking[p.bookingID] = append(byBooking[p.bookingID], pi)
		if mb.provider[pi] != [2]int64{paidAt[pi], refundedAt[pi]} {
			check[p.bookingID] = true
		}
	}
	for id := range h.l.dirty {
		check[id] = true
	}
	clear(h.l.dirty)
	for id := range mb.bad {
		check[id] = true
	}
	ids := slices.Sorted(maps.Keys(check))
	perPayment, err := ledgerByPayment(ctx, h.store, ids)
	if err != nil {
		return 0, nil, err
	}
	desk, err := deskMoney(ctx, h.store, ids)
	if err != nil {
		return 0, nil, err
	}
	balances, err := balanceOutcomes(ctx, h.store, ids)
	if err != nil {
		return 0, nil, err
	}
	for _, id := range ids {
		l, err := h.store.LedgerMoney(ctx, id)
		if err != nil {
			return 0, nil, err
		}
		var fs []domain.Finding
		wrong := func(pi, format string, args ...any) {
			fs = append(fs, domain.Finding{Check: "money_count", BookingID: id, PaymentID: pi, Detail: fmt.Sprintf(format, args...)})
		}
		var f bookingMoney
		for _, pi := range byBooking[id] {
			in, back, p := paidAt[pi], refundedAt[pi], h.l.paid[pi]
			f.providerIn += in
			f.providerBack += back
			if back > in {
				wrong(pi, "the provider gave back %d of a payment of %d", back, in)
			}
			if got := perPayment[pi]; got.back != back {
				wrong(pi, "the provider gave back %d, the ledger says %d", back, got.back)
			}
			if got := perPayment[pi]; !p.ackedAt.IsZero() && got.captured != in {
				wrong(pi, "the guest paid %d at the provider, the ledger captured %d", in, got.captured)
			}
			if p.amendmentID > 0 && !p.ackedAt.IsZero() && p.ackedAt.Before(p.dueBy.Add(-time.Second)) && !h.l.booked[id].cancelTried &&
				balances[p.amendmentID] != [2]string{string(domain.AmendmentApplied), pi} {
				wrong(pi, "the balance of amendment %d was paid before it was due, yet the amendment is %v", p.amendmentID, balances[p.amendmentID])
			}
		}
		g := h.l.booked[id]
		for pi, d := range desk[id] {
			f.deskIn += d.amount
			f.deskBack += d.back
			if d.back > d.amount {
				wrong(pi, "the desk gave back %d of a payment of %d", d.back, d.amount)
			}
			if got := perPayment[pi]; got.back != d.back || got.captured != d.amount {
				wrong(pi, "the desk took %d and gave back %d, the ledger says %d and %d", d.amount, d.back, got.captured, got.back)
			}
		}
		if g != nil {
			for key, amount := range g.desk {
				if d := desk[id][domain.DeskPaymentID(id, key)]; d.amount != amount {
					wrong(domain.DeskPaymentID(id, key), "the desk was told %d was taken, the database has %d", amount, d.amount)
				}
			}
		}
		in, back := f.providerIn+f.deskIn, f.providerBack+f.deskBack
		f.kept = l.Kept
		switch {
		case l.Owed != 0 || l.Refunding != 0 || l.Unkept != 0:
			wrong("", "settled, yet %d owed, %d refunding and %d received and not kept (ledger %+v)", l.Owed, l.Refunding, l.Unkept, l)
		case in-back != l.Kept:
			wrong("", "the guest paid %d and was given back %d, the booking keeps %d by its ledger (ledger %+v)", in, back, l.Kept, l)
		case l.Paid+l.UnkeptRefunded != in || l.Refunded+l.UnkeptRefunded != back:
			wrong("", "the guest paid %d and was given back %d, the ledger says %d and %d (ledger %+v)", in, back,
				l.Paid+l.UnkeptRefunded, l.Refunded+l.UnkeptRefunded, l)
		}
		if b, ok := stored.bookings[id]; ok && g != nil && !g.unsure {
			owes := int64(0)
			if domain.Status(b.status).HoldsInventory() {
				owes = b.total - g.refundsAnswered
			}
			if l.Kept != owes {
				wrong("", "%s at %d with %d given back by staff: keeps %d, owes %d (ledger %+v)", b.status, b.total,
					g.refundsAnswered, l.Kept, owes, l)
			}
		}
		mb.figures[id] = f
		if len(fs) > 0 {
			mb.bad[id], mb.everBad[id] = fs, true
		} else {
			delete(mb.bad, id)
		}
	}
	for pi, p := range h.l.paid {
		if check[p.bookingID] {
			mb.provider[pi] = [2]int64{paidAt[pi], refundedAt[pi]}
		}
	}
	mb.seenEntry = max(mb.seenEntry, last)
	var findings []domain.Finding
	for _, id := range slices.Sorted(maps.Keys(mb.bad)) {
		findings = append(findings, mb.bad[id]...)
	}
	return len(mb.bad), findings, nil
}

// paymentLedger is what a payment's ledger entries say came in and went back.
type paymentLedger struct{ captured, back int64 }

func ledgerByPayment(ctx context.Context, store *db.Store, ids []string) (map[string]paymentLedger, error) {
	rows, err := store.Pool().Query(ctx, `SELECT payment_id,
			COALESCE(sum(amount) FILTER (WHERE kind = 'captured'), 0)::bigint,
			(COALESCE(sum(amount) FILTER (WHERE credit = 'paid_back'), 0) - COALESCE(sum(amount) FILTER (WHERE debit = 'paid_back'), 0))::bigint
		FROM money_ledger WHERE booking_id = ANY($1) AND payment_id <> '' GROUP BY payment_id`, ids)
	if err != nil {
		return nil, err
	}
	out := map[string]paymentLedger{}
	var pi string
	var p paymentLedger
	_, err = pgx.ForEachRow(rows, []any{&pi, &p.captured, &p.back}, func() error {
		out[pi] = p
		return nil
	})
	return out, err
}

// deskPayment is a payment the desk took and what the desk gave back of it (its refunds).
type deskPayment struct{ amount, back int64 }

func deskMoney(ctx context.Context, store *db.Store, ids []string) (map[string]map[string]deskPayment, error) {
	rows, err := store.Pool().Query(ctx, `SELECT p.booking_id, p.payment_id, p.amount,
			COALESCE((SELECT sum(r.amount) FROM refunds r WHERE r.payment_id = p.payment_id AND r.status = 'succeeded'), 0)::bigint
		FROM payments p WHERE p.booking_id = ANY($1) AND p.status = 'succeeded' AND starts_with(p.payment_id, 'desk/')`, ids)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]deskPayment{}
	var id, pi string
	var d deskPayment
	_, err = pgx.ForEachRow(rows, []any{&id, &pi, &d.amount, &d.back}, func() error {
		if out[id] == nil {
			out[id] = map[string]deskPayment{}
		}
		out[id][pi] = d
		return nil
	})
	return out, err
}

// balanceOutcomes returns each amendment's status and the payment that paid its balance.
func balanceOutcomes(ctx context.Context, store *db.Store, ids []string) (map[int64][2]string, error) {
	rows, err := store.Pool().Query(ctx, `SELECT id, status, COALESCE(balance_payment_id, '') FROM booking_amendments
		WHERE booking_id = ANY($1)`, ids)
	if err != nil {
		return nil, err
	}
	out := map[int64][2]string{}
	var id int64
	var status, pi string
	_, err = pgx.ForEachRow(rows, []any{&id, &status, &pi}, func() error {
		out[id] = [2]string{status, pi}
		return nil
	})
	return out, err
}
