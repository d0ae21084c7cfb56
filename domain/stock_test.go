package domain_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/bookflow/bookflow/domain"
)

func TestStockReportValidation(t *testing.T) {
	five, minus := 5, -1
	d := domain.NewDate(2027, 5, 1)
	night := func(date domain.Date, total *int, rate int64, currency string) domain.StockNight {
		return domain.StockNight{Date: date, Total: total, Rate: rate, Currency: currency}
	}
	valid := domain.StockReport{HotelID: "h1", RoomTypes: []domain.RoomTypeStock{{RoomTypeID: "dbl",
		Nights: []domain.StockNight{night(d, &five, 100, "EUR"), night(d.AddDays(1), nil, 100, "EUR")}}}}
	assert.NoError(t, valid.Validate())

	for name, r := range map[string]domain.StockReport{
		"no room types":      {HotelID: "h1"},
		"bad hotel id":       {HotelID: "h 1", RoomTypes: valid.RoomTypes},
		"room type twice":    {HotelID: "h1", RoomTypes: []domain.RoomTypeStock{valid.RoomTypes[0], valid.RoomTypes[0]}},
		"night twice":        {HotelID: "h1", RoomTypes: []domain.RoomTypeStock{{RoomTypeID: "dbl", Nights: []domain.StockNight{night(d, &five, 1, "EUR"), night(d, &five, 1, "EUR")}}}},
		"negative total":     {HotelID: "h1", RoomTypes: []domain.RoomTypeStock{{RoomTypeID: "dbl", Nights: []domain.StockNight{night(d, &minus, 1, "EUR")}}}},
		"negative rate":      {HotelID: "h1", RoomTypes: []domain.RoomTypeStock{{RoomTypeID: "dbl", Nights: []domain.StockNight{night(d, &five, -1, "EUR")}}}},
		"no rate":            {HotelID: "h1", RoomTypes: []domain.RoomTypeStock{{RoomTypeID: "dbl", Nights: []domain.StockNight{night(d, &five, 100, "EUR"), {Date: d.AddDays(1), Total: &five, Currency: "EUR"}}}}},
		"no date":            {HotelID: "h1", RoomTypes: []domain.RoomTypeStock{{RoomTypeID: "dbl", Nights: []domain.StockNight{night(domain.Date{}, &five, 1, "EUR")}}}},
		"bad currency":       {HotelID: "h1", RoomTypes: []domain.RoomTypeStock{{RoomTypeID: "dbl", Nights: []domain.StockNight{night(d, &five, 1, "euro")}}}},
		"two currencies":     {HotelID: "h1", RoomTypes: []domain.RoomTypeStock{{RoomTypeID: "dbl", Nights: []domain.StockNight{night(d, &five, 1, "EUR"), night(d.AddDays(1), &five, 1, "USD")}}}},
		"room type id empty": {HotelID: "h1", RoomTypes: []domain.RoomTypeStock{{Nights: []domain.StockNight{night(d, &five, 1, "EUR")}}}},
	} {
		assert.ErrorIs(t, r.Validate(), domain.ErrInvalid, name)
	}
	noRate := domain.StockReport{HotelID: "h1", RoomTypes: []domain.RoomTypeStock{{RoomTypeID: "dbl", Nights: []domain.StockNight{{Date: d, Currency: "EUR"}}}}}
	assert.ErrorContains(t, noRate.Validate(), "dbl on 2027-05-01: rate must be", "the refusal names the night")
}

func TestAReportIsOrderedByItsTimeOrTheFallbackAndNeverFromTheFuture(t *testing.T) {
	now := time.Unix(1_900_000_000, 0)
	fallback := now.Add(-time.Second)
	at, err := domain.StockReport{}.OrderedAt(fallback, now)
	assert.NoError(t, err)
	assert.Equal(t, fallback, at, "no report time: the fallback")
	sent := now.Add(-time.Minute)
	at, err = domain.StockReport{ReportedAt: &sent}.OrderedAt(fallback, now)
	assert.NoError(t, err)
	assert.Equal(t, sent, at)
	skewed, ahead := now.Add(4*time.Minute), now.Add(6*time.Minute)
	at, err = domain.StockReport{ReportedAt: &skewed}.OrderedAt(fallback, now)
	assert.NoError(t, err, "a clock a little ahead is tolerated")
	assert.Equal(t, now, at, "and counts as now: it would keep the later reports bookflow times off its nights")
	_, err = domain.StockReport{ReportedAt: &ahead}.OrderedAt(fallback, now)
	assert.ErrorIs(t, err, domain.ErrInvalid)
}
