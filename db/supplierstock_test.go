package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// reportAt is report() read by the supplier at at.
func reportAt(at time.Time, hotel string, totals ...*int) domain.StockReport {
	r := report(hotel, totals...)
	r.ReportedAt = &at
	return r
}

func totals(t *testing.T, d *testsuite.Database, nights int) []int {
	t.Helper()
	stock, err := d.Store.HotelStock(context.Background(), "h1", dec10, dec10.AddDays(nights))
	require.NoError(t, err)
	out := make([]int, len(stock))
	for i, n := range stock {
		out[i] = *n.Total
	}
	return out
}

func TestAnOlderReportNeverOverwritesTheNightsANewerOneSet(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	supplierHotel(t, d, "sup", db.ModeDirectProcure, "h1")
	t0 := time.Now().Add(-time.Minute)
	t1 := t0.Add(10 * time.Second)

	// A push read at t1 sets the first two nights to 4 rooms; a pull that read the supplier at
	// t0, earlier, answers afterwards with 10 rooms on five nights.
	res, err := d.Store.ApplySupplierStock(ctx, "sup", "push", reportAt(t1, "h1", intp(4), intp(4)))
	require.NoError(t, err)
	assert.Equal(t, db.SyncResult{HotelID: "h1", Nights: 2}, res)
	res, err = d.Store.ApplySupplierStock(ctx, "sup", "pull", reportAt(t0, "h1", intp(10), intp(10), intp(10), intp(10), intp(10)))
	require.NoError(t, err)
	assert.Equal(t, db.SyncResult{HotelID: "h1", Nights: 3, Stale: 2}, res, "only the nights no newer report set")
	assert.Equal(t, []int{4, 4, 10, 10, 10}, totals(t, d, 5))

	// A report read at the same moment as the one that set a night is not older: the later
	// arrival wins (a supplier whose clock has one-second steps keeps its second change).
	res, err = d.Store.ApplySupplierStock(ctx, "sup", "push", reportAt(t1, "h1", intp(7), intp(7)))
	require.NoError(t, err)
	assert.Equal(t, db.SyncResult{HotelID: "h1", Nights: 2}, res)
	assert.Equal(t, []int{7, 7, 10, 10, 10}, totals(t, d, 5))
	// An older one is stale.
	res, err = d.Store.ApplySupplierStock(ctx, "sup", "push", reportAt(t1.Add(-time.Millisecond), "h1", intp(4), intp(4)))
	require.NoError(t, err)
	assert.Equal(t, db.SyncResult{HotelID: "h1", Stale: 2}, res)
	// A newer one is written, and so is one without a time (stamped with now).
	res, err = d.Store.ApplySupplierStock(ctx, "sup", "pull", reportAt(t1.Add(time.Millisecond), "h1", intp(6)))
	require.NoError(t, err)
	assert.Equal(t, 1, res.Nights)
	res, err = d.Store.ApplySupplierStock(ctx, "sup", "push", report("h1", intp(5), intp(5)))
	require.NoError(t, err)
	assert.Equal(t, 2, res.Nights)
	assert.Equal(t, []int{5, 5, 10, 10, 10}, totals(t, d, 5))
	stock, err := d.Store.HotelStock(ctx, "h1", dec10, dec10.AddDays(5))
	require.NoError(t, err)
	require.NotNil(t, stock[2].ReportedAt)
	assert.WithinDuration(t, t0, *stock[2].ReportedAt, time.Microsecond, "each night shows the report time that set it")
}

func TestAReplayedPushIsRefusedAndWritesNothing(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	supplierHotel(t, d, "sup", db.ModeDirectProcure, "h1")

	// The push carries no report time: it is ordered by when it arrived, so a replay, arriving
	// later, would look newer than the pull made in between.
	res, err := d.Store.ApplySupplierPush(ctx, "sup", "digest-1", 10*time.Minute, report("h1", intp(8)))
	require.NoError(t, err)
	assert.Equal(t, 1, res.Nights)
	_, err = d.Store.ApplySupplierStock(ctx, "sup", "pull", report("h1", intp(3)))
	require.NoError(t, err)
	_, err = d.Store.ApplySupplierPush(ctx, "sup", "digest-1", 10*time.Minute, report("h1", intp(8)))
	assert.ErrorIs(t, err, db.ErrReplayed)
	assert.Equal(t, []int{3}, totals(t, d, 1), "the replay wrote nothing")

	// Another push (another digest) is taken; one remembered past the tolerance is forgotten.
	_, err = d.Store.ApplySupplierPush(ctx, "sup", "digest-2", 10*time.Minute, report("h1", intp(2)))
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `UPDATE supplier_pushes SET received_at = now() - interval '11 minutes' WHERE digest = 'digest-1'`)
	require.NoError(t, err)
	_, err = d.Store.ApplySupplierPush(ctx, "sup", "digest-3", 10*time.Minute, report("h1", intp(2)))
	require.NoError(t, err)
	var kept int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM supplier_pushes`).Scan(&kept))
	assert.Equal(t, 2, kept, "digest-1 was pruned")
}

// TestReportsRacingOnNewNightsLeaveTheNewest: twelve reports of nights not stored yet, read at
// twelve instants, applied at once in any order: every night ends with the newest one's totals,
// whichever inserted the night first. (Without the report order, the last to commit wins.)
func TestReportsRacingOnNewNightsLeaveTheNewest(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	supplierHotel(t, d, "sup", db.ModeDirectProcure, "h1")
	base := time.Now().Add(-time.Minute)
	errs := make([]error, 12)
	testsuite.Race(12, func(i int) {
		_, errs[i] = d.Store.ApplySupplierStock(ctx, "sup", "push", reportAt(base.Add(time.Duration(i)*time.Second), "h1",
			intp(i+1), intp(i+1), intp(i+1)))
	})
	require.NoError(t, errors.Join(errs...))
	assert.Equal(t, []int{12, 12, 12}, totals(t, d, 3))
}

// A sync's low-stock alert counts the rooms left for sale: blocked rooms are not.
func TestASyncLeavingFewRoomsBesidesBlockedOnesRaisesLowStock(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	supplierHotel(t, d, "sup", db.ModeDirectProcure, "h1")
	_, err := d.Store.ApplySupplierStock(ctx, "sup", "pull", report("h1", intp(10)))
	require.NoError(t, err)
	_, err = d.Store.SetBlockedRooms(ctx, db.BlockRooms{HotelID: "h1", RoomTypeID: "double", From: dec10, To: dec10.AddDays(1), Blocked: 4})
	require.NoError(t, err)
	require.NoError(t, d.Store.SetStockAlertThresholds(ctx, []string{"h1"}, []string{"double"}, 2))
	// The supplier now has 5: 5 - 4 blocked = 1 room left, under the threshold of 2.
	_, err = d.Store.ApplySupplierStock(ctx, "sup", "push", report("h1", intp(5)))
	require.NoError(t, err)
	stock, err := d.Store.HotelStock(ctx, "h1", dec10, dec10.AddDays(1))
	require.NoError(t, err)
	require.Equal(t, 1, stock[0].Available)
	alerts, err := d.Store.StockAlerts(ctx, "h1", false, 10)
	require.NoError(t, err)
	kinds := []string{}
	for _, a := range alerts {
		kinds = append(kinds, a.Kind)
	}
	assert.Contains(t, kinds, db.AlertLowStock, "1 room left, threshold 2")
}
