package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

func intp(v int) *int { return &v }

func createRule(t testing.TB, d *testsuite.Database, r domain.SaleRule) domain.SaleRule {
	t.Helper()
	r.SetBy = "tester"
	require.NoError(t, r.Validate())
	stored, err := d.Store.CreateSaleRules(context.Background(), []domain.SaleRule{r})
	require.NoError(t, err)
	return stored[0]
}

func TestStopSellRefusesInTheReservationAndCancellingItReopensAtOnce(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	splitStock(t, d)
	ctx := context.Background()
	stop := createRule(t, d, domain.SaleRule{Kind: domain.RuleStopSell, HotelID: "h1", ChannelID: "A",
		From: soon.AddDays(1), To: soon.AddDays(2), Reason: "event"})

	b, err := d.Store.Reserve(ctx, channelHold("g1", "A", "agent-a", soonStay, 1))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, b.Status)
	assert.Contains(t, b.Refusal, "stop-sell (event)")
	assert.Equal(t, []int{0, 0, 0}, d.Reserved(t, "h1", "double", soonStay), "a refusal by rule takes nothing")

	b, err = d.Store.Reserve(ctx, channelHold("g2", "B", "", soonStay, 1))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusHold, b.Status, "channel A's stop-sell leaves channel B selling")

	require.NoError(t, d.Store.EndSaleRule(ctx, stop.ID))
	p := channelHold("g1", "A", "agent-a", soonStay, 1)
	p.IdempotencyKey, p.BookingID = "k2", domain.BookingID(idKey, "g1", "g1", "k2")
	b, err = d.Store.Reserve(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusHold, b.Status, "sellable again the moment the stop-sell is cancelled")
	d.AssertInventoryMatchesBookings(t)
}

func TestLengthOfStayDiscountIsInThePriceSnapshot(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	createRule(t, d, domain.SaleRule{Kind: domain.RuleLengthOfStay, HotelID: "h1", MinLOS: intp(2),
		DiscountFrom: intp(3), DiscountPercent: intp(15)})
	ctx := context.Background()

	b, err := d.Store.Reserve(ctx, holdParams("g1", "k", stay3, 2))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, b.Status)
	assert.Equal(t, int64(2*3*10000*85/100), b.Price.Total, "15%% off 3 nights of 2 rooms")
	assert.Equal(t, int64(9000), b.Discount)
	require.Len(t, b.Price.Nights, 3)
	assert.Equal(t, int64(2*10000*85/100), b.Price.Nights[0].Amount, "each night carries its share of the discount")

	short := domain.Stay{CheckIn: dec10, CheckOut: dec10.AddDays(1)}
	b, err = d.Store.Reserve(ctx, holdParams("g2", "k", short, 1))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, b.Status, "one night is below the minimum of 2")
	assert.Contains(t, b.Refusal, "at least 2 nights")
}

// TestBookingWindowIsJudgedOnTheHotelsCalendar: at the same instant it is already tomorrow in
// Kiritimati (UTC+14) and still yesterday in Pago Pago (UTC-11). A window of at least one day
// ahead is judged on each hotel's own date, at its first and last allowed days.
func TestBookingWindowIsJudgedOnTheHotelsCalendar(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	for _, h := range []struct{ id, tz string }{{"kiritimati", "Pacific/Kiritimati"}, {"pago", "Pacific/Pago_Pago"}} {
		loc, err := time.LoadLocation(h.tz)
		require.NoError(t, err)
		today := domain.DateOf(time.Now(), loc)
		require.NoError(t, d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: h.id, RoomTypeID: "double", TimeZone: h.tz,
			From: today.AddDays(-1), To: today.AddDays(12), TotalRooms: 5, Rate: &testsuite.TestRate}))
		createRule(t, d, domain.SaleRule{Kind: domain.RuleBookingWindow, HotelID: h.id, MinAdvance: intp(1), MaxAdvance: intp(10)})

		for ahead, want := range map[int]domain.Status{0: domain.StatusRejected, 1: domain.StatusHold,
			10: domain.StatusHold, 11: domain.StatusRejected} {
			in := today.AddDays(ahead)
			p := holdParams("g", h.id+in.String(), domain.Stay{CheckIn: in, CheckOut: in.AddDays(1)}, 1)
			p.Request.HotelID = h.id
			p.BookingID = domain.BookingID(idKey, "g", "g", p.IdempotencyKey)
			b, err := d.Store.Reserve(ctx, p)
			require.NoError(t, err)
			assert.Equal(t, want, b.Status, "%s: check-in %d days ahead at the hotel", h.id, ahead)
		}
	}
}

func TestPastStopSellsExpireOnTheHotelsCalendar(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	today := domain.DateOf(time.Now(), time.UTC)
	past := createRule(t, d, domain.SaleRule{Kind: domain.RuleStopSell, HotelID: "h1", From: today.AddDays(-5), To: today, Reason: "full"})
	current := createRule(t, d, domain.SaleRule{Kind: domain.RuleStopSell, HotelID: "h1", From: today, To: today.AddDays(1), Reason: "full"})

	n, err := d.Store.ExpireStopSells(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	active, err := d.Store.SaleRules(ctx, db.SaleRuleFilter{HotelID: "h1"})
	require.NoError(t, err)
	require.Len(t, active, 1)
	assert.Equal(t, current.ID, active[0].ID)
	all, err := d.Store.SaleRules(ctx, db.SaleRuleFilter{HotelID: "h1", Ended: true})
	require.NoError(t, err)
	require.Len(t, all, 2, "an expired stop-sell is kept for the record")
	assert.Equal(t, past.ID, all[1].ID)
}

func TestLowStockRaisesOneAlertPerNight(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 4)
	require.NoError(t, d.Store.SetStockAlertThresholds(ctx, []string{"h1"}, []string{"double"}, 3))
	assert.ErrorIs(t, d.Store.SetStockAlertThresholds(ctx, []string{"h1"}, []string{"nope"}, 3), domain.ErrNotFound)

	_, err := d.Store.Reserve(ctx, holdParams("g1", "k", stay3, 1))
	require.NoError(t, err)
	alerts, err := d.Store.StockAlerts(ctx, "h1", false, 10)
	require.NoError(t, err)
	assert.Empty(t, alerts, "3 left is not below 3")
	_, err = d.Store.Reserve(ctx, holdParams("g2", "k", stay3, 1))
	require.NoError(t, err)
	_, err = d.Store.Reserve(ctx, holdParams("g3", "k", stay3, 1))
	require.NoError(t, err)
	alerts, err = d.Store.StockAlerts(ctx, "h1", false, 10)
	require.NoError(t, err)
	require.Len(t, alerts, 3, "one open alert per night, however many sales went below")
	assert.Equal(t, db.AlertLowStock, alerts[0].Kind)
	require.NoError(t, d.Store.ResolveStockAlert(ctx, alerts[0].ID))
	assert.ErrorIs(t, d.Store.ResolveStockAlert(ctx, alerts[0].ID), domain.ErrNotFound)
}

func supplierHotel(t *testing.T, d *testsuite.Database, supplierID, mode, hotelID string) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, d.Store.PutSupplier(ctx, db.Supplier{ID: supplierID, Mode: mode, HoldMinutes: 30}))
	require.NoError(t, d.Store.SetHotelSupplier(ctx, hotelID, supplierID, ""))
}

func report(hotel string, totals ...*int) domain.StockReport {
	r := domain.StockReport{HotelID: hotel, RoomTypes: []domain.RoomTypeStock{{RoomTypeID: "double"}}}
	for i, t := range totals {
		r.RoomTypes[0].Nights = append(r.RoomTypes[0].Nights, domain.StockNight{Date: dec10.AddDays(i), Total: t,
			Rate: 12000, Currency: "EUR"})
	}
	return r
}

func TestSyncNeverLowersStockBelowWhatIsSoldAndRaisesAnAlert(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	supplierHotel(t, d, "sup", db.ModeDirectProcure, "h1")

	res, err := d.Store.ApplySupplierStock(ctx, "sup", "pull", report("h1", intp(5), intp(5), intp(5)))
	require.NoError(t, err)
	assert.Equal(t, db.SyncResult{HotelID: "h1", Nights: 3}, res)
	_, err = d.Store.Reserve(ctx, holdParams("g1", "k", stay3, 3))
	require.NoError(t, err)

	require.NoError(t, d.Store.SetStockAlertThresholds(ctx, []string{"h1"}, []string{"double"}, 2))
	// The supplier now says 1 room on the first night, 4 on the second, and unlimited on the third.
	res, err = d.Store.ApplySupplierStock(ctx, "sup", "push", report("h1", intp(1), intp(4), nil))
	require.NoError(t, err)
	assert.Equal(t, 1, res.Conflicts)
	stock, err := d.Store.HotelStock(ctx, "h1", dec10, dec13)
	require.NoError(t, err)
	require.Len(t, stock, 3)
	assert.Equal(t, 3, *stock[0].Total, "never below the 3 held")
	assert.Equal(t, 4, *stock[1].Total)
	assert.Nil(t, stock[2].Total, "unlimited")
	assert.Equal(t, 3, stock[0].Held)
	assert.Equal(t, "push", stock[0].SyncedFrom)
	assert.NotNil(t, stock[0].SyncedAt)
	alerts, err := d.Store.StockAlerts(ctx, "h1", false, 10)
	require.NoError(t, err)
	byKind := map[string][]db.StockAlert{}
	for _, a := range alerts {
		byKind[a.Kind] = append(byKind[a.Kind], a)
	}
	require.Len(t, byKind[db.AlertSyncConflict], 1)
	conflict := byKind[db.AlertSyncConflict][0]
	assert.Equal(t, dec10, conflict.Night)
	assert.Contains(t, conflict.Detail, "reports 1 rooms, 3 are sold or held")
	assert.Len(t, byKind[db.AlertLowStock], 2, "0 and 1 rooms left are below 2; the unlimited night is not")

	// Nothing more can be sold on the first night: the alert did not "fix" anything by selling.
	b, err := d.Store.Reserve(ctx, holdParams("g2", "k", stay3, 1))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, b.Status)
	d.AssertInventoryMatchesBookings(t)
}

func TestSyncForAnotherSuppliersHotelWritesNothing(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	supplierHotel(t, d, "sup", db.ModeDirectProcure, "h1")
	supplierHotel(t, d, "other", db.ModeDirectProcure, "h2")

	_, err := d.Store.ApplySupplierStock(ctx, "other", "push", report("h1", intp(5)))
	assert.ErrorIs(t, err, domain.ErrInvalid)
	_, err = d.Store.ApplySupplierStock(ctx, "sup", "push", report("nowhere", intp(5)))
	assert.ErrorIs(t, err, domain.ErrInvalid)
	var rows int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM inventory`).Scan(&rows))
	assert.Zero(t, rows)
}
