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

// A supplier sync upserts its room types' rows in code order; a rule write locks them
// FOR UPDATE in id order. With a room type created before another whose code sorts first, the
// two deadlock.
func TestSyncAndRuleWriteDeadlock(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	supplierHotel(t, d, "sup", db.ModeDirectProcure, "h1")
	// zeta first (lower id), then alpha (higher id, first in code order).
	_, err := d.Store.ApplySupplierStock(ctx, "sup", "pull", twoTypeReport("h1", "zeta"))
	require.NoError(t, err)
	_, err = d.Store.ApplySupplierStock(ctx, "sup", "pull", twoTypeReport("h1", "alpha"))
	require.NoError(t, err)

	deadlocks, runs := 0, 60
	for i := range runs {
		errs := make([]error, 2)
		testsuite.Race(2, func(j int) {
			if j == 0 {
				_, errs[0] = d.Store.ApplySupplierStock(ctx, "sup", "push", twoTypeReport("h1", "alpha", "zeta"))
				return
			}
			rule := domain.SaleRule{Kind: domain.RuleStopSell, HotelID: "h1", From: dec10.AddDays(20), To: dec10.AddDays(21),
				Reason: "event", Note: fmt.Sprint("r", i), SetBy: "tester"}
			_, errs[1] = d.Store.CreateSaleRules(ctx, []domain.SaleRule{rule})
		})
		for _, e := range errs {
			if isDeadlock(e) {
				deadlocks++
			} else {
				require.NoError(t, e)
			}
		}
	}
	assert.Zero(t, deadlocks, "deadlocks between a supplier sync and a rule write in %d runs", runs)
}

// A sync that adds a new room type (after one it already upserted) needs the hotel's row
// FOR KEY SHARE (the foreign key) while a rule write holds it FOR UPDATE and waits for the room
// type row the sync upserted: a deadlock whatever the ids.
func TestSyncAddingARoomTypeAndRuleWriteDeadlock(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	supplierHotel(t, d, "sup", db.ModeDirectProcure, "h1")
	_, err := d.Store.ApplySupplierStock(ctx, "sup", "pull", twoTypeReport("h1", "a"))
	require.NoError(t, err)

	deadlocks, runs := 0, 60
	for i := range runs {
		errs := make([]error, 2)
		testsuite.Race(2, func(j int) {
			if j == 0 {
				_, errs[0] = d.Store.ApplySupplierStock(ctx, "sup", "push", twoTypeReport("h1", "a", fmt.Sprintf("n%03d", i)))
				return
			}
			rule := domain.SaleRule{Kind: domain.RuleStopSell, HotelID: "h1", From: dec10.AddDays(20), To: dec10.AddDays(21),
				Reason: "event", Note: fmt.Sprint("r", i), SetBy: "tester"}
			_, errs[1] = d.Store.CreateSaleRules(ctx, []domain.SaleRule{rule})
		})
		for _, e := range errs {
			if isDeadlock(e) {
				deadlocks++
			} else {
				require.NoError(t, e)
			}
		}
	}
	assert.Zero(t, deadlocks, "deadlocks between a supplier sync adding a room type and a rule write in %d runs", runs)
}

// SetInventory (an admin's stock at a supplier's hotel) takes the hotel's row FOR UPDATE
// and then its room type's row; a sync holding that room type's row and adding a new room type
// needs the hotel's row FOR KEY SHARE: a deadlock.
func TestSyncAddingARoomTypeAndSetInventoryDeadlock(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	supplierHotel(t, d, "sup", db.ModeDirectProcure, "h1")
	_, err := d.Store.ApplySupplierStock(ctx, "sup", "pull", twoTypeReport("h1", "a"))
	require.NoError(t, err)

	deadlocks, runs := 0, 60
	for i := range runs {
		errs := make([]error, 2)
		testsuite.Race(2, func(j int) {
			if j == 0 {
				_, errs[0] = d.Store.ApplySupplierStock(ctx, "sup", "push", twoTypeReport("h1", "a", fmt.Sprintf("n%03d", i)))
				return
			}
			errs[1] = d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: "h1", RoomTypeID: "a", From: dec10.AddDays(30),
				To: dec10.AddDays(31), TotalRooms: 4})
		})
		for _, e := range errs {
			if isDeadlock(e) {
				deadlocks++
			} else {
				require.NoError(t, e)
			}
		}
	}
	assert.Zero(t, deadlocks, "deadlocks between a supplier sync adding a room type and SetInventory in %d runs", runs)
}
