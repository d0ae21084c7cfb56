package db_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// A supplier sync takes its hotel's row before its room types' rows, as rule writes and
// SetInventory do: these race a sync against each, and fail on any deadlock (without the sync's
// hotel lock they deadlocked tens of times in 60 runs).

// isDeadlock reports whether err is PostgreSQL's deadlock_detected.
func isDeadlock(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "40P01"
}

// twoTypeReport is a report of 5 rooms on three nights for each room type code.
func twoTypeReport(hotel string, codes ...string) domain.StockReport {
	r := domain.StockReport{HotelID: hotel}
	for _, c := range codes {
		rt := domain.RoomTypeStock{RoomTypeID: c}
		for i := range 3 {
			rt.Nights = append(rt.Nights, domain.StockNight{Date: dec10.AddDays(i), Total: intp(5), Rate: 12000, Currency: "EUR"})
		}
		r.RoomTypes = append(r.RoomTypes, rt)
	}
	return r
}

// deadlocks races sync(i) against other(i) in each of 60 runs and counts the runs' deadlocks;
// any other error fails the test.
func deadlocks(t *testing.T, sync, other func(i int) error) int {
	t.Helper()
	n := 0
	for i := range 60 {
		errs := make([]error, 2)
		testsuite.Race(2, func(j int) {
			if j == 0 {
				errs[0] = sync(i)
			} else {
				errs[1] = other(i)
			}
		})
		for _, e := range errs {
			if isDeadlock(e) {
				n++
			} else {
				require.NoError(t, e)
			}
		}
	}
	return n
}

// syncing and writeRule are the two sides of the races: a push of the given room types, a
// stop-sell at h1.
func syncing(d *testsuite.Database, codes func(i int) []string) func(int) error {
	return func(i int) error {
		_, err := d.Store.ApplySupplierStock(context.Background(), "sup", "push", twoTypeReport("h1", codes(i)...))
		return err
	}
}

func writeRule(d *testsuite.Database) func(int) error {
	return func(i int) error {
		rule := domain.SaleRule{Kind: domain.RuleStopSell, HotelID: "h1", From: dec10.AddDays(20), To: dec10.AddDays(21),
			Reason: "event", Note: fmt.Sprint("r", i), SetBy: "tester"}
		_, err := d.Store.CreateSaleRules(context.Background(), []domain.SaleRule{rule})
		return err
	}
}

// supplierHotelWith makes h1 a supplier's hotel whose room types are created in the order given.
func supplierHotelWith(t *testing.T, d *testsuite.Database, codes ...string) {
	t.Helper()
	supplierHotel(t, d, "sup", db.ModeDirectProcure, "h1")
	for _, c := range codes {
		_, err := d.Store.ApplySupplierStock(context.Background(), "sup", "pull", twoTypeReport("h1", c))
		require.NoError(t, err)
	}
}

// A supplier sync upserts its room types' rows in code order; a rule write locks them FOR UPDATE
// in id order. With a room type created before another whose code sorts first, the two met in
// opposite orders.
func TestSyncAndRuleWriteDeadlock(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	supplierHotelWith(t, d, "zeta", "alpha") // zeta has the lower id, alpha sorts first
	both := func(int) []string { return []string{"alpha", "zeta"} }
	assert.Zero(t, deadlocks(t, syncing(d, both), writeRule(d)), "a supplier sync and a rule write deadlocked")
}

// A sync that adds a new room type (after one it already upserted) needs the hotel's row FOR KEY
// SHARE (the foreign key) while a rule write holds it FOR UPDATE and waits for the room type row
// the sync upserted, whatever the ids.
func TestSyncAddingARoomTypeAndRuleWriteDeadlock(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	supplierHotelWith(t, d, "a")
	adding := func(i int) []string { return []string{"a", fmt.Sprintf("n%03d", i)} }
	assert.Zero(t, deadlocks(t, syncing(d, adding), writeRule(d)), "a sync adding a room type and a rule write deadlocked")
}

// SetInventory (an admin's stock at a supplier's hotel) takes the hotel's row FOR UPDATE, then its
// room type's row: against a sync holding that room type's row and adding a new one, likewise.
func TestSyncAddingARoomTypeAndSetInventoryDeadlock(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	supplierHotelWith(t, d, "a")
	adding := func(i int) []string { return []string{"a", fmt.Sprintf("n%03d", i)} }
	setInventory := func(int) error {
		return d.Store.SetInventory(context.Background(), db.SetInventoryParams{HotelID: "h1", RoomTypeID: "a",
			From: dec10.AddDays(30), To: dec10.AddDays(31), TotalRooms: 4})
	}
	assert.Zero(t, deadlocks(t, syncing(d, adding), setInventory), "a sync adding a room type and SetInventory deadlocked")
}
