package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// ariHotel is h1 with doubles (5 rooms) and suites (2) on day(0)..day(3) at 100.00 EUR, and NR
// derived from BAR at -10%.
func ariHotel(t *testing.T) *testsuite.Database {
	t.Helper()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, day(3), 5)
	d.SetInventory(t, "h1", "suite", dec10, day(3), 2)
	_, err := d.Store.PutRatePlan(context.Background(), flexible("NR", "BAR"))
	require.NoError(t, err)
	return d
}

// feedUntil reads the feed of h1 from since until its last change is last (other tests' open
// transactions anywhere in the cluster hold the feed's horizon back for a moment), and answers
// the page as changes (see change).
func feedUntil(t *testing.T, d *testsuite.Database, since, last string) (db.ARIChangePage, []string) {
	t.Helper()
	var page db.ARIChangePage
	var got []string
	require.Eventually(t, func() bool {
		var err error
		page, err = d.Store.ARIChanges(context.Background(), "h1", since, 100)
		require.NoError(t, err)
		got = changes(page)
		return len(got) > 0 && got[len(got)-1] == last
	}, 30*time.Second, 20*time.Millisecond, "the feed after %s never ended with %s", since, last)
	return page, got
}

// feedSettled is the cursor after every change h1 has had so far. An export's cursor may come
// before changes it already reflects (those of transactions younger than one still in flight
// anywhere in the cluster): the feed lists them again once settled, which a test skips here.
func feedSettled(t *testing.T, d *testsuite.Database) string {
	t.Helper()
	ctx := context.Background()
	out, err := d.Store.ARIExport(ctx, "h1", "", "", dec10, day(1))
	require.NoError(t, err)
	next := out.Cursor
	require.Eventually(t, func() bool {
		var passed bool
		require.NoError(t, d.Pool.QueryRow(ctx, `SELECT pg_snapshot_xmin(pg_current_snapshot())
			> (SELECT max(xid) FROM ari_changes)`).Scan(&passed))
		if passed {
			page, err := d.Store.ARIChanges(ctx, "h1", out.Cursor, 100)
			require.NoError(t, err)
			next = page.Next
		}
		return passed
	}, 30*time.Second, 20*time.Millisecond)
	return next
}

func changes(page db.ARIChangePage) []string {
	var out []string
	for _, c := range page.Changes {
		out = append(out, change(c))
	}
	return out
}

// change is a feed entry as "kind room/plan from..to" (days from dec10).
func change(c db.ARIChange) string {
	s := fmt.Sprintf("%s %s/%s", c.Kind, c.RoomTypeID, c.RatePlan)
	if c.From != nil && c.To != nil {
		s += fmt.Sprintf(" %d..%d", dec10.DaysUntil(*c.From), dec10.DaysUntil(*c.To))
	}
	return s
}

// TestTheARIExportAnswersRoomsPricesAndRestrictionsPerPlan: a hold leaves 4 doubles on its
// nights; NR, derived at -10%, costs 90.00 where BAR costs 100.00; NR closed to arrival on day 1
// shows on NR only, a minimum stay of every plan on both; a night not on sale has no rooms and
// no price, and says why.
func TestTheARIExportAnswersRoomsPricesAndRestrictionsPerPlan(t *testing.T) {
	t.Parallel()
	d := ariHotel(t)
	ctx := context.Background()
	yes := true
	setRestrictions(t, d, "h1", domain.RestrictionSet{RatePlan: "NR", From: day(1), To: day(2), ClosedToArrival: &yes},
		domain.RestrictionSet{From: dec10, To: day(4), RestrictionBounds: minStay(2)})
	_, err := d.Store.Reserve(ctx, holdParams("c1", "k1", domain.Stay{CheckIn: dec10, CheckOut: day(2)}, 1))
	require.NoError(t, err)

	out, err := d.Store.ARIExport(ctx, "h1", "", "", dec10, day(4))
	require.NoError(t, err)
	require.NotEmpty(t, out.Cursor)
	require.Len(t, out.RoomTypes, 2)
	double := out.RoomTypes[0]
	assert.Equal(t, "double", double.RoomTypeID)
	var rooms []int
	for _, n := range double.Days {
		rooms = append(rooms, n.Available)
	}
	assert.Equal(t, []int{4, 4, 5, 0}, rooms, "the hold's nights, a free night, a night not on sale")
	require.Len(t, double.Plans, 2)
	bar, nr := double.Plans[0], double.Plans[1]
	assert.Equal(t, "BAR", bar.RatePlan)
	assert.Equal(t, "NR", nr.RatePlan)
	for i := range 3 {
		assert.Equal(t, int64(10000), *bar.Days[i].Amount)
		assert.Equal(t, int64(9000), *nr.Days[i].Amount)
		assert.Equal(t, "EUR", nr.Days[i].Currency)
		assert.Equal(t, 2, *bar.Days[i].MinStay)
		assert.Equal(t, 2, *nr.Days[i].MinStay)
		assert.Equal(t, i == 1, nr.Days[i].ClosedToArrival, "day %d", i)
		assert.False(t, bar.Days[i].ClosedToArrival)
	}
	assert.Nil(t, nr.Days[3].Amount)
	assert.Equal(t, "no rate is set for BAR on this night", nr.Days[3].Why)
	assert.Equal(t, day(3), nr.Days[3].Date)

	one, err := d.Store.ARIExport(ctx, "h1", "suite", "NR", dec10, day(1))
	require.NoError(t, err)
	require.Len(t, one.RoomTypes, 1)
	assert.Equal(t, 2, one.RoomTypes[0].Days[0].Available)
	require.Len(t, one.RoomTypes[0].Plans, 1)
	assert.Equal(t, int64(9000), *one.RoomTypes[0].Plans[0].Days[0].Amount)

	for _, bad := range [][2]string{{"", "XX"}, {"attic", ""}} {
		_, err = d.Store.ARIExport(ctx, "h1", bad[0], bad[1], dec10, day(1))
		assert.ErrorIs(t, err, domain.ErrNotFound, "%v", bad)
	}
	_, err = d.Store.ARIExport(ctx, "nowhere", "", "", dec10, day(1))
	assert.ErrorIs(t, err, domain.ErrNotFound)
}

// TestTheARIFeedListsEachChangeAfterTheExportsCursor: a 3-night rate write is one entry (not
// three), a hold one, a plan's restriction one; pages follow each other by next; a cursor the
// retention passed is gone.
func TestTheARIFeedListsEachChangeAfterTheExportsCursor(t *testing.T) {
	t.Parallel()
	d := ariHotel(t)
	ctx := context.Background()
	out, err := d.Store.ARIExport(ctx, "h1", "", "", dec10, day(3))
	require.NoError(t, err)
	since := feedSettled(t, d)

	_, err = d.Store.SetRates(ctx, "h1", "double", dec10, day(3), domain.Money{Amount: 12000, Currency: "EUR"}, false)
	require.NoError(t, err)
	_, err = d.Store.Reserve(ctx, holdParams("c1", "k1", domain.Stay{CheckIn: day(1), CheckOut: day(3)}, 1))
	require.NoError(t, err)
	yes := true
	setRestrictions(t, d, "h1", domain.RestrictionSet{RatePlan: "NR", RoomTypeID: "suite", From: day(1), To: day(2),
		ClosedToArrival: &yes})

	page, got := feedUntil(t, d, since, "restriction suite/NR 1..2")
	assert.Equal(t, []string{"rate double/ 0..3", "availability double/ 1..3", "restriction suite/NR 1..2"}, got)
	assert.Equal(t, page.Changes[2].Cursor, page.Next)
	assert.False(t, page.More)

	first, err := d.Store.ARIChanges(ctx, "h1", since, 1)
	require.NoError(t, err)
	assert.True(t, first.More)
	rest, err := d.Store.ARIChanges(ctx, "h1", first.Next, 100)
	require.NoError(t, err)
	assert.Equal(t, page.Changes[1:], rest.Changes, "the next page starts after the first")
	empty, err := d.Store.ARIChanges(ctx, "h1", page.Next, 100)
	require.NoError(t, err)
	assert.Empty(t, empty.Changes)
	assert.Equal(t, page.Next, empty.Next, "nothing new: the cursor stays")

	_, err = d.Store.ARIChanges(ctx, "h1", "12x", 10)
	assert.ErrorIs(t, err, domain.ErrInvalid)
	_, err = d.Store.ARIChanges(ctx, "nowhere", out.Cursor, 10)
	assert.ErrorIs(t, err, domain.ErrNotFound)

	// retention: everything written so far goes; a cursor before it is gone, the last one is not
	n, err := d.Store.PruneARIChanges(ctx, 0, 1000)
	require.NoError(t, err)
	assert.Positive(t, n)
	_, err = d.Store.ARIChanges(ctx, "h1", out.Cursor, 10)
	assert.ErrorIs(t, err, db.ErrCursorGone)
	_, err = d.Store.ARIChanges(ctx, "h1", page.Next, 10)
	assert.NoError(t, err)
}

// TestTheARIFeedNeverPassesOverAChangeCommittedLate: A writes a rate (the lower id) and stays
// open; B writes one (a higher id) and commits; a reader in between must not hand out a cursor
// past A's change, so once A commits the feed from that cursor lists it. The control serves
// every committed change it sees: the reader takes B's cursor and A's change is never served.
// Not parallel: the control swaps the feed's horizon for the whole package.
func TestTheARIFeedNeverPassesOverAChangeCommittedLate(t *testing.T) {
	for _, guarded := range []bool{true, false} {
		t.Run(map[bool]string{true: "guarded", false: "control without the horizon"}[guarded], func(t *testing.T) {
			if !guarded {
				defer db.ServeUnsettledARIChanges()()
			}
			d := ariHotel(t)
			ctx := context.Background()
			since := feedSettled(t, d)
			a, err := d.Pool.Begin(ctx)
			require.NoError(t, err)
			defer func() { _ = a.Rollback(ctx) }()
			_, err = a.Exec(ctx, `UPDATE inventory SET rate = 11000 WHERE unit_start = $1
				AND resource_id = (SELECT id FROM resources WHERE code = 'double')`, dec10.Time())
			require.NoError(t, err)
			b, err := d.Pool.Begin(ctx)
			require.NoError(t, err)
			_, err = b.Exec(ctx, `UPDATE inventory SET rate = 12000 WHERE unit_start = $1
				AND resource_id = (SELECT id FROM resources WHERE code = 'double')`, day(2).Time())
			require.NoError(t, err)
			require.NoError(t, b.Commit(ctx))

			between, err := d.Store.ARIChanges(ctx, "h1", since, 100)
			require.NoError(t, err)
			require.NoError(t, a.Commit(ctx))
			seen := changes(between)
			if !guarded {
				require.Equal(t, []string{"rate double/ 2..3"}, seen, "the control serves B's change at once")
				after, err := d.Store.ARIChanges(ctx, "h1", between.Next, 100)
				require.NoError(t, err)
				assert.Empty(t, after.Changes, "the control passes over A's change: what the horizon prevents")
				return
			}
			assert.Empty(t, seen, "B's change waits behind A, still in flight")
			_, seen = feedUntil(t, d, between.Next, "rate double/ 2..3")
			assert.Equal(t, []string{"rate double/ 0..1", "rate double/ 2..3"}, seen,
				"A's change is not passed over, and comes first: it began first")
		})
	}
}

// TestTheARIRetentionKeepsWhatTheFeedHasNotServed (review of issue 35): A writes a rate and stays
// open; B writes one and commits. B's change is past the feed's horizon until A ends, so a
// retention run (of no time at all) must leave it: else the cursor before it would be gone, and
// a re-export's cursor too, for as long as A stays open. A cursor past every transaction of the
// database (from before a restore into another cluster) is gone, not a feed of nothing.
func TestTheARIRetentionKeepsWhatTheFeedHasNotServed(t *testing.T) {
	t.Parallel()
	d := ariHotel(t)
	ctx := context.Background()
	since := feedSettled(t, d)
	a, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = a.Rollback(ctx) }()
	_, err = a.Exec(ctx, `UPDATE inventory SET rate = 11000 WHERE unit_start = $1
		AND resource_id = (SELECT id FROM resources WHERE code = 'double')`, dec10.Time())
	require.NoError(t, err)
	_, err = d.Store.SetRates(ctx, "h1", "double", day(2), day(3), domain.Money{Amount: 12000, Currency: "EUR"}, false)
	require.NoError(t, err)

	_, err = d.Store.PruneARIChanges(ctx, 0, 1000)
	require.NoError(t, err)
	require.NoError(t, a.Commit(ctx))
	_, seen := feedUntil(t, d, since, "rate double/ 2..3")
	assert.Equal(t, []string{"rate double/ 0..1", "rate double/ 2..3"}, seen, "nothing unserved was pruned")

	_, err = d.Store.ARIChanges(ctx, "h1", "9000000000000000-1", 10)
	assert.ErrorIs(t, err, db.ErrCursorGone, "a cursor from the future of this database")
}
