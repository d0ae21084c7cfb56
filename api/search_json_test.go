package api

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// TestASearchAnswerIsWrittenAsEncodingJSONWritesIt: the hand-written answer of a search at a hotel
// of 20 plans (roots, derived plans in chains of three, plans a channel may not sell, plans that
// cannot sell the stay for a rule, a missing rate, a payment rule or no room, a length-of-stay
// discount) is, byte for byte, what c.JSON wrote of the same values, for a direct sale, a
// channel's and an agent's, plain and ?pretty; so are odd strings, nil slices, a supplier's price
// and an empty answer.
func TestASearchAnswerIsWrittenAsEncodingJSONWritesIt(t *testing.T) {
	stay := domain.Stay{CheckIn: domain.NewDate(2031, 3, 1), CheckOut: domain.NewDate(2031, 3, 8)}
	deposit, two, ten := 3, 2, 10
	plans := []domain.RatePlan{{Code: domain.DefaultRatePlan, Default: true, Name: "Best available rate",
		Board: domain.BoardRoomOnly, Channels: []string{domain.AnyChannel}, Payment: domain.PaymentRule{Kind: domain.PayInFull}}}
	for i := 1; i < 20; i++ {
		p := domain.RatePlan{Code: fmt.Sprintf("P%02d", i), Name: fmt.Sprintf("Plan %d", i), Board: domain.BoardBreakfast,
			Policy:   &domain.RatePlanPolicy{CancellationPolicy: domain.CancellationPolicy{FreeUntilHours: 24 * i, FeePercent: i}},
			Payment:  domain.PaymentRule{Kind: domain.PayInFull},
			Channels: []string{domain.AnyChannel}}
		switch i % 5 {
		case 1:
			p.DerivedFrom = &domain.Derivation{Parent: domain.DefaultRatePlan, Percent: "-7.5",
				Rounding: domain.Rounding{Mode: domain.RoundNearest, Step: 100}}
		case 2:
			p.DerivedFrom = &domain.Derivation{Parent: fmt.Sprintf("P%02d", i-1), Percent: "12.25"} // a chain of three
		case 3:
			p.Channels, p.Includes = []string{"wholesale"}, `late checkout & "welcome" <drink> 🍷 `+"\u2028\xff"
		case 4:
			p.Payment = domain.PaymentRule{Kind: domain.PayDeposit, DepositPercent: 30, BalanceDueDays: &deposit}
			p.Policy.NonRefundable, p.Policy.NoShow = true, domain.NoShowKeepsAll
		}
		plans = append(plans, p)
	}
	m := hotelMeta{hotel: db.Hotel{ID: "h", Location: time.UTC,
		Policy: domain.CancellationPolicy{FreeUntilHours: 48, FeeFixed: 1500, FeeCurrency: "EUR", EarlyDeparture: "all"}},
		plans: domain.NewPlanPricer(plans),
		rules: []domain.SaleRule{
			{Kind: domain.RuleLengthOfStay, HotelID: "h", MinLOS: &two, DiscountFrom: &two, DiscountPercent: &ten},
			{Kind: domain.RuleStopSell, HotelID: "h", RoomTypeID: "room-3", RatePlan: "P05", From: stay.CheckIn,
				To: stay.CheckOut, Reason: "the <spa> is closed"},
		}}
	var rooms []db.RoomTypeAvailability
	for r := range 10 {
		room := db.RoomTypeAvailability{RoomTypeID: fmt.Sprintf("room-%d", r), Available: 5 - r%6, Unlimited: r == 7}
		for j, d := range stay.NightDates() {
			own := map[string]domain.Money{}
			for _, p := range plans[1:] {
				if p.DerivedFrom == nil && (r != 4 || j != 3) {
					own[p.Code] = domain.Money{Amount: int64(9000 + 13*j + r), Currency: "EUR"}
				}
			}
			rate := int64(10000 + 7*j)
			if r == 6 && j == 5 {
				rate = 0 // not on sale that night, under any plan
			}
			room.Nights = append(room.Nights, db.NightAvailability{Date: d, Available: 5, Unlimited: r == 7})
			room.NightRates = append(room.NightRates, domain.NightRates{Date: d, Rate: rate, Currency: "EUR", Plans: own})
		}
		rooms = append(rooms, room)
	}
	// Each plan's terms as the hotel's were read, and as they were before its policy changed (the
	// answer writes its own then).
	written := m
	var err error
	written.terms, err = planTerms(m)
	require.NoError(t, err)
	stale := m
	stale.hotel.Policy.FreeUntilHours = 72
	stale.terms, err = planTerms(stale)
	require.NoError(t, err)
	for _, p := range []party{{}, {channel: "wholesale"}, {channel: "retail", agent: "agent-7"}} {
		slabs := takeOfferSlabs()
		view := availabilityView{HotelID: "h", CheckIn: stay.CheckIn, CheckOut: stay.CheckOut, Nights: stay.Nights(),
			ChannelID: p.channel, AgentID: p.agent}
		for _, r := range rooms {
			r.Offers = offers(m, p, r, stay, stay.CheckIn.AddDays(-10), slabs)
			view.RoomTypes = append(view.RoomTypes, r)
		}
		for _, with := range []hotelMeta{m, written, stale} {
			assertWrittenAsJSON(t, with, view)
		}
		sellable, unsellable := 0, 0
		for _, r := range view.RoomTypes {
			for _, o := range r.Offers {
				if o.Sellable {
					sellable++
				} else {
					unsellable++
					assert.NotEmpty(t, o.UnsellableBecause)
				}
			}
		}
		assert.Positive(t, sellable, "party %+v", p)
		assert.Positive(t, unsellable, "party %+v", p)
		slabs.release()
	}

	// Odd values: a supplier's price with lines, nil nights, a zero date, no room types at all.
	odd := availabilityView{HotelID: "h\"<é>", Nights: 0, RoomTypes: []db.RoomTypeAvailability{
		{RoomTypeID: "a\tb", UnavailableBecause: "closed\n", SupplierPrice: &domain.Price{Currency: "EUR", Total: 5,
			Lines: []domain.LinePrice{{}}}},
		{RoomTypeID: "c", Nights: []db.NightAvailability{}, Offers: []domain.Offer{{RatePlan: "X", Price: &domain.Price{}}}},
	}}
	assertWrittenAsJSON(t, m, odd)
	assertWrittenAsJSON(t, m, availabilityView{HotelID: "h"})
	assertWrittenAsJSON(t, m, availabilityView{HotelID: "h", RoomTypes: []db.RoomTypeAvailability{}})
}

// assertWrittenAsJSON compares writeAvailability's response with c.JSON's, plain and ?pretty, with
// m's terms.
func assertWrittenAsJSON(t *testing.T, m hotelMeta, v availabilityView) {
	t.Helper()
	e := echo.New()
	for _, target := range []string{"/", "/?pretty"} {
		want, got := httptest.NewRecorder(), httptest.NewRecorder()
		require.NoError(t, e.NewContext(httptest.NewRequest(http.MethodGet, target, nil), want).JSON(http.StatusOK, v))
		require.NoError(t, writeAvailability(e.NewContext(httptest.NewRequest(http.MethodGet, target, nil), got), m, v))
		assert.Equal(t, want.Code, got.Code)
		assert.Equal(t, want.Header(), got.Header())
		if !assert.Equal(t, want.Body.String(), got.Body.String(), target) {
			return
		}
	}
}
