package console

import (
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// TestTheBookingPageOffersWhatTheStateAllows: check-in from the check-in date at the site (a
// venue order an hour before its first slot), no refund nor reversal of a refunded booking, a
// refund of at most what is kept, and a reversal of what is left of each desk payment.
func TestTheBookingPageOffersWhatTheStateAllows(t *testing.T) {
	now := time.Date(2030, 6, 3, 23, 30, 0, 0, time.UTC) // 2030-06-04 01:30 in Budapest
	zone, err := time.LoadLocation("Europe/Budapest")
	if err != nil {
		t.Skip(err)
	}
	stay := func(checkIn domain.Date, status domain.Status, paid int64) bookingWithMoney {
		return bookingWithMoney{Booking: domain.Booking{ID: "b", HotelID: "h", TimeZone: "Europe/Budapest", Status: status,
			Stay: domain.Stay{CheckIn: checkIn, CheckOut: checkIn.AddDays(2)}, Paid: paid,
			Price: domain.Price{Currency: "EUR", Total: 20000}}}
	}
	today := domain.NewDate(2030, 6, 4)
	o := offersFor(stay(today, domain.StatusConfirmed, 20000), true, true, now, zone, nil, 20000, nil, nil)
	assert.True(t, o.CheckIn, "the check-in date at the hotel, though not yet in UTC")
	o = offersFor(stay(today.AddDays(6), domain.StatusConfirmed, 20000), true, true, now, zone, nil, 20000, nil, nil)
	assert.False(t, o.CheckIn)
	assert.Equal(t, "2030-06-10", o.CheckInOpens)
	assert.Equal(t, int64(20000), o.Refund)
	assert.True(t, o.ReleaseUnits, "a paid stay not begun may be cancelled with a refund")

	pays := []db.PaymentRecord{{PaymentID: "desk-1", Amount: 5000, Method: domain.MethodCash, Status: "succeeded"},
		{PaymentID: "card-1", Amount: 15000, Method: domain.MethodProvider, Status: "succeeded"}}
	kept := keptByPayment([]db.LedgerEntry{
		{PaymentID: "desk-1", Debit: "received", Credit: "kept", Amount: 5000},
		{PaymentID: "card-1", Debit: "received", Credit: "kept", Amount: 15000},
		{PaymentID: "desk-1", Debit: "kept", Credit: "owed", Amount: 2000}, // a goodwill refund drew on it
		{Debit: "sales", Credit: "price", Amount: 20000},
	})
	assert.Equal(t, map[string]int64{"desk-1": 3000, "card-1": 15000}, kept)
	o = offersFor(stay(today, domain.StatusConfirmed, 18000), true, true, now, zone, kept, 18000, pays, nil)
	assert.Equal(t, map[string]int64{"desk-1": 3000}, o.Reverse, "what is left of the desk payment; never the provider's")
	assert.Equal(t, int64(18000), o.Refund)

	refunded := stay(today.AddDays(1), domain.StatusRefunded, 20000)
	refunded.RefundDue = 20000
	o = offersFor(refunded, true, true, now, zone, kept, 0, pays, nil)
	assert.Zero(t, o.Refund, "a refunded booking is not refunded again")
	assert.Empty(t, o.Reverse)
	assert.False(t, o.Cancel || o.Pay || o.CheckIn || o.Amend)

	venue := []db.ResourceSummary{{ID: "court-1", Kind: "exclusive_slot", Unit: "slot", Sport: "badminton"},
		{ID: "court-2", Kind: "exclusive_slot", Unit: "slot", Sport: "badminton"},
		{ID: "court-9", Kind: "exclusive_slot", Unit: "slot", Sport: "tennis"},
		{ID: "lane-1", Kind: "quota_slot", Unit: "slot", Sport: "swimming"},
		{ID: "rackets", Kind: "equipment", Unit: "hour"}}
	start := now.Add(90 * time.Minute)
	order := bookingWithMoney{Booking: domain.Booking{ID: "o", VenueID: "v", Status: domain.StatusConfirmed,
		Price: domain.Price{Currency: "EUR", Lines: []domain.LinePrice{{OrderLine: domain.OrderLine{ResourceID: "court-1",
			Start: start, End: start.Add(time.Hour), Quantity: 1}}}}}}
	o = offersFor(order, true, true, now, zone, nil, 0, nil, venue)
	assert.False(t, o.CheckIn, "an hour and a half before the slot")
	assert.Equal(t, "2030-06-04 02:00", o.CheckInOpens, "at the site: CEST")
	assert.Equal(t, [][]db.ResourceSummary{venue[:2]}, o.Move, "a badminton court moves to badminton courts")
	o = offersFor(order, true, true, now.Add(31*time.Minute), zone, nil, 0, nil, venue)
	assert.True(t, o.CheckIn)
}

// TestTheMoneySumGivesTheAPIsDue: the sum the page shows gives the API's due, a reversal's money
// due again and a goodwill refund's not; an ended booking owes nothing.
func TestTheMoneySumGivesTheAPIsDue(t *testing.T) {
	r := &request{c: &Console{cfg: Config{Logger: slog.New(slog.DiscardHandler)}}, text: catalogueFor("en")}
	b := bookingWithMoney{Booking: domain.Booking{ID: "b", Status: domain.StatusConfirmed, Price: domain.Price{Currency: "EUR", Total: 56000}},
		Money: db.MoneySummary{Currency: "EUR", Paid: 42000, Refunded: 2000, Due: 14000}}
	m := r.sumMoney(b, db.LedgerMoney{})
	assert.Equal(t, int64(40000), m.Kept)
	assert.Equal(t, "Due: price 560.00 − paid 420.00 = 140.00.", m.DueSum)
	b.Money = db.MoneySummary{Currency: "EUR", Paid: 42000, Refunded: 10000, Due: 24000}
	m = r.sumMoney(b, db.LedgerMoney{Reversed: 10000})
	assert.Equal(t, "Due: price 560.00 − paid 420.00 + reversed 100.00 (due again) = 240.00.", m.DueSum)
	b.Status, b.Money = domain.StatusRefunded, db.MoneySummary{Currency: "EUR", Paid: 42000, Refunded: 42000}
	assert.Equal(t, "Nothing is due: the booking is Refunded and holds no units.", r.sumMoney(b, db.LedgerMoney{}).DueSum)
	b.Status, b.Money = domain.StatusConfirmed, db.MoneySummary{Currency: "EUR", Paid: 60000, Refunded: 4000}
	assert.Equal(t, "Nothing is due: price 560.00 − paid 600.00 = -40.00, below zero.", r.sumMoney(b, db.LedgerMoney{}).DueSum)
	b.Money.Due = 100 // never: the page shows the API's due alone
	assert.Empty(t, r.sumMoney(b, db.LedgerMoney{}).DueSum)
}

// TestTheBookingPageOffersANoShowOnceTheBookingStarted: a confirmed stay from its check-in date at
// the hotel (not the day before), a venue order from its first slot's start (not an hour before,
// as a check-in is); never a checked-in booking, nor for a person who is not its desk.
func TestTheBookingPageOffersANoShowOnceTheBookingStarted(t *testing.T) {
	now := time.Date(2030, 6, 3, 23, 30, 0, 0, time.UTC) // 2030-06-04 01:30 in Budapest
	zone, err := time.LoadLocation("Europe/Budapest")
	if err != nil {
		t.Skip(err)
	}
	stay := func(checkIn domain.Date, status domain.Status) bookingWithMoney {
		return bookingWithMoney{Booking: domain.Booking{ID: "b", HotelID: "h", TimeZone: "Europe/Budapest", Status: status,
			Stay: domain.Stay{CheckIn: checkIn, CheckOut: checkIn.AddDays(2)}, Price: domain.Price{Currency: "EUR", Total: 20000}}}
	}
	today := domain.NewDate(2030, 6, 4)
	assert.True(t, offersFor(stay(today, domain.StatusConfirmed), true, true, now, zone, nil, 0, nil, nil).NoShow)
	assert.False(t, offersFor(stay(today.AddDays(1), domain.StatusConfirmed), true, true, now, zone, nil, 0, nil, nil).NoShow)
	assert.False(t, offersFor(stay(today, domain.StatusCompleted), true, true, now, zone, nil, 0, nil, nil).NoShow)
	assert.False(t, offersFor(stay(today, domain.StatusConfirmed), false, true, now, zone, nil, 0, nil, nil).NoShow)
	game := func(start time.Time) bookingWithMoney {
		return bookingWithMoney{Booking: domain.Booking{ID: "g", VenueID: "v", Status: domain.StatusConfirmed,
			Price: domain.Price{Currency: "EUR", Total: 2000, Lines: []domain.LinePrice{{OrderLine: domain.OrderLine{ResourceID: "court-1",
				Start: start, End: start.Add(time.Hour)}}}}}}
	}
	assert.True(t, offersFor(game(now), true, true, now, zone, nil, 0, nil, nil).NoShow, "from its first slot's start")
	o := offersFor(game(now.Add(30*time.Minute)), true, true, now, zone, nil, 0, nil, nil)
	assert.False(t, o.NoShow, "not before it")
	assert.True(t, o.CheckIn, "though its check-in is open")
}
