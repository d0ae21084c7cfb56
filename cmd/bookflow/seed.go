package main

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// demoHotels is the demo data: two hotels in different time zones.
var demoHotels = []struct {
	id, timeZone string
	rooms        map[string]int
}{
	{"grand-budapest", "Europe/Budapest", map[string]int{"single": 5, "double": 10, "suite": 2}},
	{"seaside-inn", "America/New_York", map[string]int{"double": 8, "family": 4}},
}

// demoCheckIn is a check-in date a week from today, used in the printed examples.
func demoCheckIn() domain.Date { return domain.DateOf(time.Now(), time.UTC).AddDays(7) }

func runSeed(ctx context.Context, cfg Config) error {
	pool, err := db.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	return seed(ctx, db.NewStore(pool, cfg.LockTimeout))
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
		for roomType, total := range h.rooms {
			if err := store.SetInventory(ctx, db.SetInventoryParams{HotelID: h.id, RoomTypeID: roomType,
				From: today, To: today.AddDays(365), TotalRooms: total, TimeZone: h.timeZone}); err != nil {
				return err
			}
		}
		slog.Info("seeded demo hotel", "hotel", h.id, "timeZone", h.timeZone)
	}
	return nil
}
