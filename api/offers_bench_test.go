package api

import (
	"fmt"
	"testing"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// BenchmarkOffers prices and encodes a search's offers at a hotel of 10 room types over 7 nights,
// under its default plan alone and under 20 plans (the work a search adds per plan, without the
// database or the cache): go test -run '^$' -bench Offers ./api/
func BenchmarkOffers(b *testing.B) {
	stay := domain.Stay{CheckIn: domain.NewDate(2031, 3, 1), CheckOut: domain.NewDate(2031, 3, 8)}
	for _, n := range []int{1, 20} {
		plans := []domain.RatePlan{{Code: domain.DefaultRatePlan, Default: true, Name: "Best available rate",
			Board: domain.BoardRoomOnly, Channels: []string{domain.AnyChannel}, Payment: domain.PaymentRule{Kind: domain.PayInFull}}}
		for i := 1; i < n; i++ {
			p := domain.RatePlan{Code: fmt.Sprintf("P%d", i), Name: "Plan", Board: domain.BoardBreakfast,
				Policy: &domain.RatePlanPolicy{}, Payment: domain.PaymentRule{Kind: domain.PayInFull}, Channels: []string{domain.AnyChannel}}
			if i%2 == 0 {
				p.DerivedFrom = &domain.Derivation{Parent: domain.DefaultRatePlan, Percent: "-7.5"}
			}
			plans = append(plans, p)
		}
		m := hotelMeta{hotel: db.Hotel{ID: "h", Location: time.UTC}, plans: domain.NewPlanPricer(plans)}
		var err error
		if m.terms, err = planTerms(m); err != nil { // as the hotel's terms are read
			b.Fatal(err)
		}
		var rooms []db.RoomTypeAvailability
		for r := range 10 {
			room := db.RoomTypeAvailability{RoomTypeID: fmt.Sprintf("room-%d", r), Available: 5}
			for _, d := range stay.NightDates() {
				own := map[string]domain.Money{}
				for _, p := range plans[1:] {
					if p.DerivedFrom == nil {
						own[p.Code] = domain.Money{Amount: 9000, Currency: "EUR"}
					}
				}
				room.Nights = append(room.Nights, db.NightAvailability{Date: d, Available: 5})
				room.NightRates = append(room.NightRates, domain.NightRates{Date: d, Rate: 10000, Currency: "EUR", Plans: own})
			}
			rooms = append(rooms, room)
		}
		b.Run(fmt.Sprintf("plans=%d", n), func(b *testing.B) {
			var buf []byte
			for b.Loop() {
				slabs := takeOfferSlabs()
				out := make([]db.RoomTypeAvailability, len(rooms))
				for i, r := range rooms {
					r.Offers = offers(m, party{}, r, stay, stay.CheckIn.AddDays(-10), slabs)
					out[i] = r
				}
				w := answerWriter{shared: m.terms} // as writeAvailability, whose buffers are pooled
				if buf, err = w.appendAvailability(buf[:0], availabilityView{HotelID: "h", CheckIn: stay.CheckIn,
					CheckOut: stay.CheckOut, Nights: stay.Nights(), RoomTypes: out}); err != nil {
					b.Fatal(err)
				}
				slabs.release()
			}
		})
	}
}
