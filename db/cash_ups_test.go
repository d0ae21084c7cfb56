package db_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// Cash-ups (migration 00058): what a cashier's shift expects from the ledger, and closing it once.

// dbNow is the database's clock: the ledger's entries are posted at its time.
func dbNow(t *testing.T, d *testsuite.Database) time.Time {
	t.Helper()
	var now time.Time
	require.NoError(t, d.Pool.QueryRow(context.Background(), `SELECT clock_timestamp()`).Scan(&now))
	return now
}

// deskTakes is desk payment key of amount by method, taken by cashier for booking id.
func deskTakes(t *testing.T, d *testsuite.Database, id, key, method, cashier string, amount int64) string {
	t.Helper()
	p := deskPayment(id, key, amount)
	p.Method, p.TakenBy = method, cashier
	takeDesk(t, d, p)
	return domain.DeskPaymentID(id, key)
}

// handBack gives amount of desk payment pay of booking id back at the desk as a staff refund of
// kind under key, recorded by cashier: the money leaves their drawer.
func handBack(t *testing.T, d *testsuite.Database, id, pay, kind, key, cashier string, amount int64) {
	t.Helper()
	ctx := context.Background()
	_, _, err := d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(id, key), BookingID: id, Kind: kind,
		Amount: amount, Currency: "EUR", Reason: "given back at the desk", Actor: cashier,
		Parts: []domain.Payment{{ID: pay, Amount: amount, Currency: "EUR"}}})
	require.NoError(t, err)
	a, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: id + "/" + db.StaffRefundStep(key, 0, pay) + "/1",
		BookingID: id, PaymentID: pay, Amount: amount, Currency: "EUR", Reason: "given back at the desk", RecordedBy: cashier})
	require.NoError(t, err)
	require.Equal(t, "succeeded", a.Status, "a desk payment's refund is made at the desk at once")
}

// aShift is desk-1's shift at h1 with its money: before it, 11.11 cash; in it, a 50.00 cash
// deposit and 150.00 on the terminal (b1), 30.00 cash reversed as entered by mistake (b2), 20.00
// of b1's cash given back as goodwill, 10.00 by bank transfer (b3); desk-2's 70.00 cash at h1
// and desk-1's 40.00 cash at h2 in the same time. It returns the shift, ended.
func aShift(t *testing.T, d *testsuite.Database) db.CashUpShift {
	t.Helper()
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 9)
	d.SetInventory(t, "h2", "double", dec10, dec13, 9)
	early := hold(t, d, "g0", nights(dec10, 2), 1)
	deskTakes(t, d, early.ID, "early", domain.MethodCash, "desk-1", 1111)
	from := dbNow(t, d)

	b1 := hold(t, d, "g1", nights(dec10, 2), 1)
	cash := deskTakes(t, d, b1.ID, "deposit", domain.MethodCash, "desk-1", 5000)
	deskTakes(t, d, b1.ID, "rest", domain.MethodCardTerminal, "desk-1", twoNights-5000)
	b2 := hold(t, d, "g2", nights(dec10, 2), 1)
	wrong := deskTakes(t, d, b2.ID, "typo", domain.MethodCash, "desk-1", 3000)
	handBack(t, d, b2.ID, wrong, db.RefundReversal, "rev", "desk-1", 3000)
	handBack(t, d, b1.ID, cash, db.RefundGoodwill, "gw", "desk-1", 2000)
	b3 := hold(t, d, "g3", nights(dec10, 2), 1)
	deskTakes(t, d, b3.ID, "wire", domain.MethodBankTransfer, "desk-1", 1000)

	other := hold(t, d, "g4", nights(dec10, 2), 1)
	deskTakes(t, d, other.ID, "theirs", domain.MethodCash, "desk-2", 7000)
	p := holdParams("g5", "k", nights(dec10, 2), 1)
	p.Request.HotelID = "h2"
	elsewhere, err := d.Store.Reserve(ctx, p)
	require.NoError(t, err)
	deskTakes(t, d, elsewhere.ID, "h2", domain.MethodCash, "desk-1", 4000)
	return db.CashUpShift{Site: db.Site{HotelID: "h1"}, Cashier: "desk-1", From: from, To: dbNow(t, d)}
}

func TestACashUpExpectsWhatItsCashierTookAtTheSiteLessWhatTheyGaveBack(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	shift := aShift(t, d)

	lines, err := d.Store.CashUpExpected(context.Background(), shift)
	require.NoError(t, err)
	assert.Equal(t, []db.CashUpLine{
		{Method: "cash", Currency: "EUR", Taken: 8000, Payments: 2, GivenBack: 5000, Refunds: 2, Expected: 3000},
		{Method: "card_terminal", Currency: "EUR", Taken: twoNights - 5000, Payments: 1, Expected: twoNights - 5000},
		{Method: "bank_transfer", Currency: "EUR", Taken: 1000, Payments: 1, Expected: 1000},
	}, lines, "desk-2's money, desk-1's at h2 and before the shift are in no line; the reversal and the goodwill come out of the cash")

	shift.Cashier = "desk-2"
	lines, err = d.Store.CashUpExpected(context.Background(), shift)
	require.NoError(t, err)
	assert.Equal(t, []db.CashUpLine{{Method: "cash", Currency: "EUR", Taken: 7000, Payments: 1, Expected: 7000}}, lines)

	shift.From = shift.To
	_, err = d.Store.CashUpExpected(context.Background(), shift)
	assert.ErrorIs(t, err, domain.ErrInvalid, "an empty window")
	shift.From = shift.To.Add(-db.MaxShift - time.Minute)
	_, err = d.Store.CashUpExpected(context.Background(), shift)
	assert.ErrorIs(t, err, domain.ErrInvalid, "a window longer than a shift")
	d.AssertLedgerAgrees(t)
}

func TestACashUpIsClosedOnceWithWhatWasCountedAndNeverChanged(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	shift := aShift(t, d)
	counts := []db.CashCount{{Method: "cash", Currency: "EUR", Amount: 2900}, {Method: "card_terminal", Currency: "EUR", Amount: 15000}}
	closeWith := func(key string, sh db.CashUpShift, counted []db.CashCount) (db.CashUp, bool, error) {
		return d.Store.CloseCashUp(ctx, db.CloseCashUp{CashUpShift: sh, Counted: counted, Note: "1.00 short", Key: key,
			ClosedBy: "desk-1"})
	}

	_, _, err := closeWith("c0", shift, counts[:1])
	assert.ErrorIs(t, err, domain.ErrInvalid, "the terminal's takings are expected: they are counted too")
	_, _, err = closeWith("c0", shift, append(counts, db.CashCount{Method: "bank_transfer", Currency: "EUR", Amount: 1000}))
	assert.ErrorIs(t, err, domain.ErrInvalid, "a bank transfer is not in the drawer")
	_, _, err = closeWith("c0", shift, append(counts, counts[0]))
	assert.ErrorIs(t, err, domain.ErrInvalid, "counted twice")
	future := shift
	future.To = time.Now().Add(time.Hour)
	_, _, err = closeWith("c0", future, counts)
	assert.ErrorIs(t, err, domain.ErrInvalid, "a shift is closed once it has ended")

	u, fresh, err := closeWith("c1", shift, append(counts, db.CashCount{Method: "cash", Currency: "USD", Amount: 500}))
	require.NoError(t, err)
	require.True(t, fresh)
	diff := func(l db.CashUpLine) any {
		if l.Counted == nil {
			return nil
		}
		return []int64{l.Expected, *l.Counted, *l.Difference}
	}
	require.Len(t, u.Lines, 4)
	assert.Equal(t, []any{[]int64{3000, 2900, -100}, []int64{0, 500, 500}, []int64{15000, 15000, 0}, nil},
		[]any{diff(u.Lines[0]), diff(u.Lines[1]), diff(u.Lines[2]), diff(u.Lines[3])},
		"cash EUR, cash USD found in the drawer, the terminal, the bank transfer (not counted)")
	assert.Equal(t, []string{"desk-1", "desk-1", "1.00 short", "hotel", "h1"}, []string{u.Cashier, u.ClosedBy, u.Note, u.SiteKind, u.SiteID})

	again, fresh, err := closeWith("c1", shift, append(counts, db.CashCount{Method: "cash", Currency: "USD", Amount: 500}))
	require.NoError(t, err)
	assert.False(t, fresh)
	assert.Equal(t, u.ID, again.ID, "the same close again answers the one it closed")
	_, _, err = closeWith("c1", shift, counts)
	assert.ErrorIs(t, err, domain.ErrIdempotencyMismatch, "the key with other counts")

	_, _, err = closeWith("c2", shift, counts)
	assert.ErrorIs(t, err, domain.ErrConflict, "the same shift twice")
	overlapping := shift
	overlapping.From, overlapping.To = shift.From.Add(-time.Hour), shift.From.Add(time.Millisecond)
	early := []db.CashCount{{Method: "cash", Currency: "EUR", Amount: 1111}} // the cash taken before the shift
	_, _, err = closeWith("c3", overlapping, early)
	assert.ErrorIs(t, err, domain.ErrConflict, "a shift overlapping the closed one")
	// Controls: the shift just before, and another cashier's shift at the same time, close.
	before := overlapping
	before.To = shift.From
	_, _, err = closeWith("c4", before, early)
	assert.NoError(t, err, "a shift that ends when the closed one starts")
	theirs := shift
	theirs.Cashier = "desk-2"
	_, _, err = closeWith("c5", theirs, []db.CashCount{{Method: "cash", Currency: "EUR", Amount: 7000}})
	assert.NoError(t, err, "another cashier's shift")

	for _, q := range []string{`UPDATE cash_ups SET note = 'fixed' WHERE id = $1`, `DELETE FROM cash_up_lines WHERE cash_up_id = $1`,
		`UPDATE cash_up_lines SET counted = 3000 WHERE cash_up_id = $1`, `DELETE FROM cash_ups WHERE id = $1`} {
		_, err := d.Pool.Exec(ctx, q, u.ID)
		assert.ErrorContains(t, err, "a closed cash-up is never changed", q)
	}
	noted, err := d.Store.AddCashUpNote(ctx, shift.Site, u.ID, "the 1.00 was in the tips jar", "fin-1")
	require.NoError(t, err)
	require.Len(t, noted.Notes, 1)
	assert.Equal(t, []string{"the 1.00 was in the tips jar", "fin-1"}, []string{noted.Notes[0].Note, noted.Notes[0].Author})
	assert.Equal(t, u.Lines, noted.Lines, "a note changes nothing of the cash-up")
	_, err = d.Store.AddCashUpNote(ctx, db.Site{HotelID: "h2"}, u.ID, "elsewhere", "fin-1")
	assert.ErrorIs(t, err, domain.ErrNotFound, "another site's cash-up")

	assert.Equal(t, 3, count(t, d, `SELECT count(*) FROM audit_log WHERE action = 'cash-up'`), "each close is audited")
	assert.Equal(t, 1, count(t, d, `SELECT count(*) FROM audit_log WHERE action = 'cash-up-note' AND actor = 'fin-1'`))
	listed, err := d.Store.CashUps(ctx, shift.Site, shift.From, shift.To, "")
	require.NoError(t, err)
	assert.Len(t, listed, 2, "the shift and the other cashier's; not the one before it, which ends at its start")
	listed, err = d.Store.CashUps(ctx, shift.Site, shift.From.Add(time.Millisecond), shift.To, "desk-1")
	require.NoError(t, err)
	require.Len(t, listed, 1)
	assert.Equal(t, u.ID, listed[0].ID)
}

// Two closes of one cashier's overlapping shifts race, under different keys (two tabs, two
// devices): the database's constraint lets one through. The control drops the constraint and
// both go through: without it, the same takings would be counted twice.
func TestTwoClosesOfOverlappingShiftsRacingCloseOne(t *testing.T) {
	t.Parallel()
	for _, guarded := range []bool{true, false} {
		d := testsuite.NewDatabase(t)
		ctx := context.Background()
		shift := aShift(t, d)
		if !guarded {
			_, err := d.Pool.Exec(ctx, `ALTER TABLE cash_ups DROP CONSTRAINT cash_ups_never_overlap`)
			require.NoError(t, err)
		}
		counts := []db.CashCount{{Method: "cash", Currency: "EUR", Amount: 3000}, {Method: "card_terminal", Currency: "EUR", Amount: 15000}}
		const n = 8
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sh := shift
				sh.From = shift.From.Add(-time.Duration(i) * time.Minute) // each a different window, all overlapping
				_, _, errs[i] = d.Store.CloseCashUp(ctx, db.CloseCashUp{CashUpShift: sh, Counted: counts,
					Key: "tab-" + string(rune('a'+i)), ClosedBy: "desk-1"})
			}()
		}
		wg.Wait()
		closed := 0
		for _, err := range errs {
			if err == nil {
				closed++
			} else {
				assert.ErrorIs(t, err, domain.ErrConflict)
			}
		}
		if guarded {
			assert.Equal(t, 1, closed, "one shift closed: %v", errs)
		} else {
			assert.Equal(t, n, closed, "without the constraint every close goes through")
		}
	}
}

// A venue's cash-up reads its orders' desk money; a site is found by its id, a hotel's or a
// venue's, and an id both use is refused rather than guessed.
func TestAVenuesCashUpAndSitesByID(t *testing.T) {
	t.Parallel()
	d := openVenue(t)
	ctx := context.Background()
	from := dbNow(t, d)
	o, err := d.Store.ReserveOrder(ctx, order("g1", "k1", slotLine("court-1", 7, 1)))
	require.NoError(t, err)
	deskTakes(t, d, o.ID, "cash", domain.MethodCash, "desk-v", 1500)
	lines, err := d.Store.CashUpExpected(ctx, db.CashUpShift{Site: db.Site{VenueID: "v1"}, Cashier: "desk-v", From: from,
		To: dbNow(t, d)})
	require.NoError(t, err)
	assert.Equal(t, []db.CashUpLine{{Method: "cash", Currency: o.Price.Currency, Taken: 1500, Payments: 1, Expected: 1500}}, lines)
	lines, err = d.Store.CashUpExpected(ctx, db.CashUpShift{Site: db.Site{HotelID: "v1"}, Cashier: "desk-v", From: from,
		To: dbNow(t, d)})
	require.NoError(t, err)
	assert.Empty(t, lines, "no hotel v1's money")

	site, loc, err := d.Store.SiteByID(ctx, "v1")
	require.NoError(t, err)
	assert.Equal(t, db.Site{VenueID: "v1"}, site)
	assert.Equal(t, "UTC", loc.String())
	_, _, err = d.Store.SiteByID(ctx, "nowhere")
	assert.ErrorIs(t, err, domain.ErrNotFound)
	d.SetInventory(t, "h1", "double", dec10, dec13, 1)
	site, _, err = d.Store.SiteByID(ctx, "h1")
	require.NoError(t, err)
	assert.Equal(t, db.Site{HotelID: "h1"}, site)
	d.SetInventory(t, "v1", "double", dec10, dec13, 1)
	_, _, err = d.Store.SiteByID(ctx, "v1")
	assert.ErrorIs(t, err, domain.ErrConflict, "a hotel and a venue called v1")
}

// The same close sent twice at once (a double click, a retry racing its first try) under one
// key: one cash-up, closed once, both answered with it.
func TestTheSameCloseRacingItselfClosesOnceAndAnswersBoth(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	shift := aShift(t, d)
	counts := []db.CashCount{{Method: "cash", Currency: "EUR", Amount: 3000}, {Method: "card_terminal", Currency: "EUR", Amount: 15000}}
	const n = 6
	ids, fresh, errs := make([]int64, n), make([]bool, n), make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var u db.CashUp
			u, fresh[i], errs[i] = d.Store.CloseCashUp(context.Background(), db.CloseCashUp{CashUpShift: shift, Counted: counts,
				Key: "double-click", ClosedBy: "desk-1"})
			ids[i] = u.ID
		}()
	}
	wg.Wait()
	firsts := 0
	for i := range n {
		require.NoError(t, errs[i])
		assert.Equal(t, ids[0], ids[i])
		if fresh[i] {
			firsts++
		}
	}
	assert.Equal(t, 1, firsts, "closed by one of them")
	assert.Equal(t, 1, count(t, d, `SELECT count(*) FROM cash_ups`))
	assert.Equal(t, 1, count(t, d, `SELECT count(*) FROM audit_log WHERE action = 'cash-up'`))
}
