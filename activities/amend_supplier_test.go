package activities_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestASettlementAskedAgainStillNamesTheHoldTheBookingLeft: the balance of a direct_procure
// booking's amendment (confirmed by its supplier as a new hold) is paid; SettleAmendment applies
// it and names the booking's old hold for the workflow to cancel. Its answer lost, the activity
// is retried: the database answers the settled amendment, but the booking's own hold is now the
// new one, so the retry names no old hold, and nobody ever cancels it (db.Store.SupplierRefs no
// longer lists it either).
func TestASettlementAskedAgainStillNamesTheHoldTheBookingLeft(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	checkIn := domain.DateOf(time.Now(), time.UTC).AddDays(10)
	d.SetInventory(t, "h1", "double", checkIn, checkIn.AddDays(3), 5)
	require.NoError(t, d.Store.PutSupplier(ctx, db.Supplier{ID: "sup", Mode: db.ModeDirectProcure, HoldMinutes: 30}))
	require.NoError(t, d.Store.SetHotelSupplier(ctx, "h1", "sup", ""))
	req := domain.HoldRequest{CustomerID: "c1", HotelID: "h1", RoomTypeID: "double",
		Stay: domain.Stay{CheckIn: checkIn, CheckOut: checkIn.AddDays(2)}, Quantity: 1}
	b, err := d.Store.Reserve(ctx, db.ReserveParams{BookingID: "booking-c1", IdempotencyKey: "k", Request: req,
		CreatedBy: "c1", HoldTTL: time.Hour, SupplierID: "sup"})
	require.NoError(t, err)
	_, err = d.Store.RecordSupplierConfirmation(ctx, b.ID, "C-1")
	require.NoError(t, err)
	b, err = d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_1", Amount: b.Price.Total, Currency: "EUR"})
	require.NoError(t, err)

	none := func(domain.Booking, int64) int64 { return 0 }
	a, _, err := d.Store.Amend(ctx, db.AmendParams{BookingID: b.ID, IdempotencyKey: "a1", Actor: "c1", BalanceWindow: time.Hour,
		Change: domain.Change{CheckOut: checkIn.AddDays(3)}, RefundOf: none})
	require.NoError(t, err)
	require.Equal(t, domain.AmendmentSupplierPending, a.Status)
	a, _, _, err = d.Store.SupplierAnswered(ctx, b.ID, a.ID, db.SupplierAnswer{Confirmed: true, Confirmation: "C-2"}, time.Hour, none)
	require.NoError(t, err)
	require.Equal(t, domain.AmendmentBalanceDue, a.Status)

	acts := &activities.Bookings{Store: d.Store}
	in := activities.SettleAmendmentInput{BookingID: b.ID, AmendmentID: a.ID,
		Payment: domain.Payment{ID: "pi_balance", Amount: a.Difference, Currency: "EUR"}}
	first, err := acts.SettleAmendment(ctx, in)
	require.NoError(t, err)
	require.Equal(t, domain.AmendmentApplied, first.Amendment.Status)
	require.Equal(t, b.ID, first.OldSupplierRef, "the hold the booking left is for the supplier to cancel")

	again, err := acts.SettleAmendment(ctx, in) // the first answer was lost
	require.NoError(t, err)
	assert.Equal(t, first.OldSupplierRef, again.OldSupplierRef, "asked again, the old hold must still be named")
}

// TestAnAmendmentAskedAgainIsAnsweredAsStoredWhileItsSupplierIsDown: a direct_connect booking's
// amendment is stored (its quote taken); the Amend activity's answer is lost and it is retried
// (or the client retries under the same key) while the supplier's endpoint is down. The
// database would answer the stored amendment, but the activity first asks the supplier for a
// quote again and fails, retried for ever by the workflow's database retry policy: the booking's
// workflow is stuck in the amendment (cancels, payments and timers wait behind it).
func TestAnAmendmentAskedAgainIsAnsweredAsStoredWhileItsSupplierIsDown(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	checkIn := domain.DateOf(time.Now(), time.UTC).AddDays(10)
	d.SetInventory(t, "h1", "double", checkIn, checkIn.AddDays(3), 5) // the room type only
	require.NoError(t, d.Store.PutSupplier(ctx, db.Supplier{ID: "sup", Mode: db.ModeDirectConnect, HoldMinutes: 30,
		Endpoint: "http://127.0.0.1:1"})) // nothing listens there
	require.NoError(t, d.Store.SetHotelSupplier(ctx, "h1", "sup", ""))
	req := domain.HoldRequest{CustomerID: "c1", HotelID: "h1", RoomTypeID: "double",
		Stay: domain.Stay{CheckIn: checkIn, CheckOut: checkIn.AddDays(2)}, Quantity: 1}
	price := func(n int) *domain.Price {
		p := domain.Price{Currency: "EUR"}
		for i := range n {
			p.Nights = append(p.Nights, domain.NightRate{Date: checkIn.AddDays(i), Amount: 10000})
			p.Total += 10000
		}
		return &p
	}
	b, err := d.Store.ReserveAtSupplier(ctx, db.ReserveParams{BookingID: "booking-c1", IdempotencyKey: "k", Request: req,
		CreatedBy: "c1", HoldTTL: time.Hour, SupplierID: "sup"}, price(2))
	require.NoError(t, err)
	_, err = d.Store.RecordSupplierConfirmation(ctx, b.ID, "C-1")
	require.NoError(t, err)
	change := domain.Change{CheckOut: checkIn.AddDays(3)}
	stored, _, err := d.Store.Amend(ctx, db.AmendParams{BookingID: b.ID, IdempotencyKey: "a1", Actor: "c1", BalanceWindow: time.Hour,
		Change: change, RefundOf: func(domain.Booking, int64) int64 { return 0 }, SupplierPrice: price(3)})
	require.NoError(t, err)
	require.Equal(t, domain.AmendmentSupplierPending, stored.Status)

	acts := &activities.Bookings{Store: d.Store}
	again, err := acts.Amend(ctx, activities.AmendInput{BookingID: b.ID, IdempotencyKey: "a1", Change: change, Actor: "c1",
		BalanceWindow: time.Hour, At: time.Now()})
	require.NoError(t, err, "asked again, the stored amendment is answered without the supplier")
	assert.Equal(t, stored.ID, again.Amendment.ID)
}
