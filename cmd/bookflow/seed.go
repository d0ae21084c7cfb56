package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// demoHotels is the demo data: two hotels in different time zones (and a venue, below).
var demoHotels = []struct {
	id, timeZone, currency string
	rooms                  map[string]demoRoom
	policy                 domain.CancellationPolicy
}{
	{"grand-budapest", "Europe/Budapest", "EUR",
		map[string]demoRoom{"single": {5, 9000}, "double": {10, 14000}, "suite": {2, 42000}},
		domain.CancellationPolicy{FreeUntilHours: 48, FeePercent: 20, NoRefundHours: 24}},
	{"seaside-inn", "America/New_York", "USD",
		map[string]demoRoom{"double": {8, 18900}, "family": {4, 25900}},
		domain.CancellationPolicy{FreeUntilHours: 72, FeeFixed: 5000, FeeCurrency: "USD"}},
}

// demoRoom is a demo room type: how many rooms, and the nightly rate in minor units.
type demoRoom struct {
	total int
	rate  int64
}

// demoCheckIn is a check-in date a week from today, used in the printed examples.
func demoCheckIn() domain.Date { return domain.DateOf(time.Now(), time.UTC).AddDays(7) }

// runSeed loads the demo data, or, with --hotels N, a synthetic catalogue at scale (N hotels of
// 5 room types, --days nights each) with COPY, and says how long it took.
func runSeed(ctx context.Context, cfg Config) error {
	fs := flag.NewFlagSet("seed", flag.ExitOnError)
	hotels := fs.Int("hotels", 0, "load a synthetic catalogue of this many hotels instead of the demo data")
	days := fs.Int("days", 365, "nights open per room type, from tomorrow (with --hotels)")
	roomTypes := fs.Int("room-types", 5, "room types per hotel (with --hotels)")
	prefix := fs.String("prefix", "scale", "the synthetic hotels' id prefix (with --hotels)")
	_ = fs.Parse(os.Args[2:])
	pool, err := db.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	store := db.NewStore(pool, cfg.LockTimeout)
	if *hotels <= 0 {
		return seed(ctx, store)
	}
	if err := db.Migrate(ctx, pool); err != nil {
		return err
	}
	start := time.Now()
	n, err := store.LoadCatalogue(ctx, db.CatalogueParams{Prefix: *prefix, Hotels: *hotels, RoomTypes: *roomTypes, Days: *days,
		Rooms: 20, From: domain.DateOf(time.Now(), time.UTC).AddDays(1), Rate: domain.Money{Amount: 10000, Currency: "EUR"}})
	if err != nil {
		return err
	}
	loaded := time.Since(start)
	analyzed, err := store.AnalyzeInventory(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("loaded %d hotels, %d inventory rows in %s (%.0f rows/s); ANALYZE %s\n", *hotels, n,
		loaded.Round(time.Millisecond), float64(n)/loaded.Seconds(), analyzed.Round(time.Millisecond))
	return nil
}

// seed opens every demo room type for the next 365 nights. A hotel that already exists is left
// alone, so restarting dev keeps what was booked or changed.
func seed(ctx context.Context, store *db.Store) error {
	for _, h := range demoHotels {
		_, err := store.GetHotel(ctx, h.id)
		if err == nil {
			continue
		}
		if !errors.Is(err, domain.ErrNotFound) {
			return err
		}
		loc, err := time.LoadLocation(h.timeZone)
		if err != nil {
			return err
		}
		today := domain.DateOf(time.Now(), loc)
		for roomType, room := range h.rooms {
			if err := store.SetInventory(ctx, db.SetInventoryParams{HotelID: h.id, RoomTypeID: roomType,
				From: today, To: today.AddDays(365), TotalRooms: room.total, TimeZone: h.timeZone,
				Rate: &domain.Money{Amount: room.rate, Currency: h.currency}}); err != nil {
				return err
			}
		}
		if err := store.SetCancellationPolicy(ctx, h.id, h.policy); err != nil {
			return err
		}
		slog.Info("seeded demo hotel", "hotel", h.id, "timeZone", h.timeZone)
	}
	return seedVenue(ctx, store)
}

// demoVenue is a sports venue with one resource of each kind, and its schedules.
var demoVenue = struct {
	venue     domain.Venue
	resources []domain.VenueResource
	schedules map[string]domain.Schedule // by resource; From and To are set when seeding
}{
	venue: domain.NewVenue("riverside-sports", "Riverside Sports", "Europe/Berlin"),
	resources: []domain.VenueResource{
		{ID: "court-1", Kind: domain.KindExclusiveSlot, Name: "Badminton court 1", Sport: "badminton"},
		{ID: "court-2", Kind: domain.KindExclusiveSlot, Name: "Badminton court 2", Sport: "badminton"},
		{ID: "lane-1", Kind: domain.KindQuotaSlot, Name: "Swim lane 1", Sport: "swimming", Capacity: 6},
		{ID: "rackets", Kind: domain.KindEquipment, Name: "Badminton rackets", Unit: domain.UnitHour, Capacity: 12},
	},
	schedules: map[string]domain.Schedule{
		"court-1": {Opens: "08:00", Closes: "22:00", SlotMinutes: 60, Price: domain.Money{Amount: 1800, Currency: "EUR"}},
		"court-2": {Opens: "08:00", Closes: "22:00", SlotMinutes: 60, Price: domain.Money{Amount: 1800, Currency: "EUR"}},
		"lane-1":  {Opens: "06:30", Closes: "21:30", SlotMinutes: 45, Price: domain.Money{Amount: 650, Currency: "EUR"}},
		"rackets": {Opens: "08:00", Closes: "22:00", SlotMinutes: 60, Price: domain.Money{Amount: 300, Currency: "EUR"}},
	},
}

// seedVenue lays out the demo venue's slots for the next 30 days; a venue that exists is left
// alone.
func seedVenue(ctx context.Context, store *db.Store) error {
	v := demoVenue.venue
	if _, _, err := store.GetVenue(ctx, v.ID); !errors.Is(err, domain.ErrNotFound) {
		return err
	}
	if err := v.Validate(); err != nil {
		return err
	}
	if _, err := store.PutVenue(ctx, v); err != nil {
		return err
	}
	loc, err := time.LoadLocation(v.TimeZone)
	if err != nil {
		return err
	}
	today := domain.DateOf(time.Now(), loc)
	for _, r := range demoVenue.resources {
		r.VenueID = v.ID
		if err := r.Validate(); err != nil {
			return err
		}
		if _, err := store.PutVenueResource(ctx, r); err != nil {
			return err
		}
		sched := demoVenue.schedules[r.ID]
		sched.From, sched.To = today, today.AddDays(30)
		if err := sched.Validate(r.Unit); err != nil {
			return err
		}
		if _, err := store.ApplySchedule(ctx, v.ID, r.ID, sched); err != nil {
			return err
		}
	}
	slog.Info("seeded demo venue", "venue", v.ID, "timeZone", v.TimeZone)
	return nil
}
