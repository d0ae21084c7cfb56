package domain_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
)

func TestScheduleValidation(t *testing.T) {
	day := domain.NewDate(2030, 6, 3)
	ok := func() domain.Schedule {
		return domain.Schedule{From: day, To: day.AddDays(7), Opens: "07:00", Closes: "22:00", SlotMinutes: 60,
			Price: domain.Money{Amount: 100, Currency: "EUR"}}
	}
	good := ok()
	require.NoError(t, good.Validate(domain.UnitSlot))
	for name, change := range map[string]func(*domain.Schedule){
		"no dates":         func(s *domain.Schedule) { s.From = domain.Date{} },
		"to before from":   func(s *domain.Schedule) { s.To = s.From },
		"too long":         func(s *domain.Schedule) { s.To = s.From.AddDays(domain.MaxScheduleDays + 1) },
		"weekday 8":        func(s *domain.Schedule) { s.Weekdays = []int{1, 8} },
		"bad currency":     func(s *domain.Schedule) { s.Price.Currency = "eur" },
		"negative price":   func(s *domain.Schedule) { s.Price.Amount = -1 },
		"bad clock":        func(s *domain.Schedule) { s.Opens = "7am" },
		"25:00":            func(s *domain.Schedule) { s.Closes = "25:00" },
		"closes first":     func(s *domain.Schedule) { s.Closes = "06:00" },
		"3-minute slots":   func(s *domain.Schedule) { s.SlotMinutes = 3 },
		"no slot length":   func(s *domain.Schedule) { s.SlotMinutes = 0 },
		"24:30":            func(s *domain.Schedule) { s.Closes = "24:30" },
		"opens at closing": func(s *domain.Schedule) { s.Opens = "22:00" },
		"negative hour":    func(s *domain.Schedule) { s.Opens = "-1:00" },
		"negative minute":  func(s *domain.Schedule) { s.Opens = "00:-5" },
		"a sign":           func(s *domain.Schedule) { s.Opens = "+7:00" },
		"huge price":       func(s *domain.Schedule) { s.Price.Amount = domain.MaxUnitPrice + 1 },
	} {
		s := ok()
		change(&s)
		err := s.Validate(domain.UnitSlot)
		assert.True(t, errors.Is(err, domain.ErrInvalid), "%s: %v", name, err)
	}
	hourly := ok()
	hourly.SlotMinutes = 0
	require.NoError(t, hourly.Validate(domain.UnitHour))
	assert.Equal(t, 60, hourly.SlotMinutes, "an hour is 60 minutes")
	hourly.SlotMinutes = 30
	assert.Error(t, hourly.Validate(domain.UnitHour))
}

func TestScheduleUnits(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	require.NoError(t, err)
	monday := domain.NewDate(2030, 6, 3)
	s := domain.Schedule{From: monday, To: monday.AddDays(7), Weekdays: []int{6, 7}, Opens: "09:00", Closes: "10:30",
		SlotMinutes: 45, Price: domain.Money{Amount: 1, Currency: "EUR"}}
	units := s.Units(domain.UnitSlot, berlin)
	require.Len(t, units, 4, "two 45-minute slots on Saturday and on Sunday")
	assert.Equal(t, time.Date(2030, 6, 8, 7, 0, 0, 0, time.UTC), units[0].Start, "09:00 in Berlin's summer is 07:00 UTC")
	assert.Equal(t, time.Date(2030, 6, 8, 7, 45, 0, 0, time.UTC), units[0].End)

	days := domain.Schedule{From: domain.NewDate(2030, 3, 30), To: domain.NewDate(2030, 4, 1)}.Units(domain.UnitDay, berlin)
	require.Len(t, days, 2)
	assert.Equal(t, 24*time.Hour, days[0].End.Sub(days[0].Start))
	assert.Equal(t, 23*time.Hour, days[1].End.Sub(days[1].Start), "the day the clocks go forward is 23 hours long")

	// New York: Go places a skipped time before the jump there; opening at 02:30 on the day the
	// clocks go forward still opens at the jump (03:00 EDT), and closing at 02:30 closes there.
	newYork, err := time.LoadLocation("America/New_York")
	require.NoError(t, err)
	jump := domain.NewDate(2030, 3, 10)
	ny := domain.Schedule{From: jump, To: jump.AddDays(1), Opens: "02:30", Closes: "05:00", SlotMinutes: 60}.Units(domain.UnitSlot, newYork)
	require.Len(t, ny, 2)
	assert.Equal(t, "03:00 -0400", ny[0].Start.In(newYork).Format("15:04 -0700"))
	early := domain.Schedule{From: jump, To: jump.AddDays(1), Opens: "00:00", Closes: "02:30", SlotMinutes: 60}.Units(domain.UnitSlot, newYork)
	require.Len(t, early, 2, "00:00 and 01:00 EST; the day closes at the jump")
	assert.Equal(t, "01:00 -0500", early[1].Start.In(newYork).Format("15:04 -0700"))

	// Opening inside the skipped hour opens at the jump.
	spring := domain.Schedule{From: domain.NewDate(2030, 3, 31), To: domain.NewDate(2030, 4, 1), Opens: "02:30", Closes: "04:00",
		SlotMinutes: 30}.Units(domain.UnitSlot, berlin)
	require.NotEmpty(t, spring)
	assert.Equal(t, "03:00 +0200", spring[0].Start.In(berlin).Format("15:04 -0700"))
}

func TestVenueAndResourceValidation(t *testing.T) {
	v := domain.Venue{ID: "v1", TimeZone: "Asia/Shanghai"}
	require.NoError(t, v.Validate())
	assert.Equal(t, 15, v.PaymentWindowMinutes, "a payment window is needed")
	assert.Zero(t, v.FreeCancelHours, "zero is a term")
	assert.Equal(t, domain.Venue{ID: "v2", TimeZone: "UTC", PaymentWindowMinutes: 15, FreeCancelHours: 24, NoShowGraceMinutes: 15},
		domain.NewVenue("v2", "", "UTC"))
	for _, bad := range []domain.Venue{{ID: "v 1", TimeZone: "UTC"}, {ID: "v1"}, {ID: "v1", TimeZone: "Local"},
		{ID: "v1", TimeZone: "UTC", PaymentWindowMinutes: -5}} {
		assert.True(t, errors.Is(bad.Validate(), domain.ErrInvalid), "%+v", bad)
	}
	court := domain.VenueResource{ID: "c1", Kind: domain.KindExclusiveSlot}
	require.NoError(t, court.Validate())
	assert.Equal(t, 1, court.Capacity)
	assert.Equal(t, domain.UnitSlot, court.Unit)
	for _, bad := range []domain.VenueResource{
		{ID: "c1", Kind: domain.KindExclusiveSlot, Capacity: 2},
		{ID: "c1", Kind: domain.KindQuotaSlot},
		{ID: "c1", Kind: domain.KindQuotaSlot, Capacity: 6, Unit: domain.UnitHour},
		{ID: "c1", Kind: domain.KindEquipment, Capacity: 6},
		{ID: "c1", Kind: "pool", Capacity: 6},
	} {
		assert.True(t, errors.Is(bad.Validate(), domain.ErrInvalid), "%+v", bad)
	}
}

func TestPhoneNumbersAreNormalised(t *testing.T) {
	for in, want := range map[string]string{
		"+49 (151) 123-45 678": "+4915112345678", "0049 151 12345678": "+4915112345678", " +86.138.0013.8000 ": "+8613800138000",
	} {
		got, err := domain.NormalisePhone(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "0151 12345678", "+49 151 abc", "+1234", "+1234567890123456", "12+345678901", "+0 123456789"} {
		_, err := domain.NormalisePhone(bad)
		assert.True(t, errors.Is(err, domain.ErrInvalid), "%q: %v", bad, err)
	}
}

// TestATimeShownTwiceIsItsFirstInstant: 02:00 on the day Berlin's clocks go back is shown at
// 00:00 UTC (summer time) and again at 01:00 UTC; a venue opening at 02:00 opens at the first.
func TestATimeShownTwiceIsItsFirstInstant(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	require.NoError(t, err)
	autumn := domain.NewDate(2030, 10, 27)
	assert.Equal(t, time.Date(2030, 10, 27, 0, 0, 0, 0, time.UTC), autumn.AtMinute(120, berlin).UTC())
	assert.Equal(t, time.Date(2030, 10, 27, 0, 30, 0, 0, time.UTC), autumn.AtMinute(150, berlin).UTC())
	assert.Equal(t, time.Date(2030, 10, 27, 2, 0, 0, 0, time.UTC), autumn.At(3, berlin).UTC(), "03:00 is shown once")
	units := domain.Schedule{From: autumn, To: autumn.AddDays(1), Opens: "02:00", Closes: "04:00", SlotMinutes: 60}.Units(domain.UnitSlot, berlin)
	assert.Len(t, units, 3, "02:00 summer time, 02:00 winter time, 03:00")
}

// TestAVenueOrdersRefusalSpeaksOfSlotsNotNights: a rejected venue order's public reason names
// slots and items; a hotel's keeps its rooms and nights.
func TestAVenueOrdersRefusalSpeaksOfSlotsNotNights(t *testing.T) {
	venue := domain.Booking{VenueID: "v1", Status: domain.StatusRejected}.PublicReason()
	assert.Contains(t, venue, "slots")
	assert.NotContains(t, venue, "room")
	assert.NotContains(t, venue, "night")
	hotel := domain.Booking{HotelID: "h1", Status: domain.StatusRejected}.PublicReason()
	assert.Equal(t, "the rooms asked for are not available on every night of the stay", hotel)
	assert.Equal(t, domain.StatusExpired.PublicReason(), domain.Booking{VenueID: "v1", Status: domain.StatusExpired}.PublicReason(),
		"a reason that names neither rooms nor nights is the same for both")
}
