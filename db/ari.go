package db

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// ARIExport is a hotel's availability, rates and restrictions (ARI) over dates, as a channel
// manager loads it: per room type, the rooms left for a direct sale each date, and per plan that
// sells it, each date's price and restrictions. Cursor is the change feed's position this export
// reflects (ARIChanges from it: nothing is missed, a change may come twice).
type ARIExport struct {
	HotelID   string        `json:"hotelId"`
	From      domain.Date   `json:"from"`
	To        domain.Date   `json:"to"`
	Cursor    string        `json:"cursor"`
	RoomTypes []ARIRoomType `json:"roomTypes"`
}

// ARIRoomType is one room type of an export: its rooms each date (every plan sells from them) and
// its plans.
type ARIRoomType struct {
	RoomTypeID string              `json:"roomTypeId"`
	Days       []NightAvailability `json:"days"`
	Plans      []ARIPlan           `json:"plans"`
}

// ARIPlan is a plan selling a room type, date by date.
type ARIPlan struct {
	RatePlan string       `json:"ratePlan"`
	Days     []ARIPlanDay `json:"days"`
}

// ARIPlanDay is one date of a plan: its price for the night (domain.PlanNight: amount and
// currency, or why none) and the restrictions in force for it (domain.RestrictionDay).
type ARIPlanDay struct {
	domain.RestrictionDay
	Amount   *int64 `json:"amount"`
	Currency string `json:"currency,omitempty"`
	Why      string `json:"why,omitempty"`
}

// ARIExport reads a hotel's ARI over [from, to) for direct sales, of one room type and one plan
// when given, in one snapshot (REPEATABLE READ, read only): rooms as Availability counts them,
// prices as domain.PlanPricer derives them (each plan's chain walked once), restrictions as
// domain.RestrictionCalendar finds them. An unknown hotel, room type or plan is ErrNotFound.
func (s *Store) ARIExport(ctx context.Context, hotelID, roomTypeID, plan string, from, to domain.Date) (ARIExport, error) {
	out := ARIExport{HotelID: hotelID, From: from, To: to, RoomTypes: []ARIRoomType{}}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			// the snapshot is taken by the first statement: the cursor is that snapshot's
			var pos feedPosition
			if err := tx.QueryRow(ctx, `SELECT `+ariSettled).Scan(&pos.xid); err != nil {
				return err
			}
			out.Cursor = pos.String()
			plans, err := ratePlans(ctx, tx, hotelID) // ErrNotFound for no hotel
			if err != nil {
				return err
			}
			if plan != "" && !planIn(plans, plan) {
				return fmt.Errorf("%w: rate plan %s of hotel %s", domain.ErrNotFound, plan, hotelID)
			}
			rules, err := activeSaleRules(ctx, tx, hotelID)
			if err != nil {
				return err
			}
			rooms, err := availability(ctx, tx, hotelID, "", domain.Stay{CheckIn: from, CheckOut: to})
			if err != nil {
				return err
			}
			pricer := domain.NewPlanPricer(plans)
			for _, room := range rooms {
				if roomTypeID != "" && room.RoomTypeID != roomTypeID {
					continue
				}
				row := ARIRoomType{RoomTypeID: room.RoomTypeID, Days: room.Nights, Plans: []ARIPlan{}}
				for _, p := range pricer.Plans() {
					if !p.Sells(room.RoomTypeID) || plan != "" && p.Code != plan {
						continue
					}
					priced, err := pricer.Nightly(p.Code, room.NightRates)
					if err != nil {
						return err
					}
					restricted := domain.RestrictionCalendar(rules, hotelID, room.RoomTypeID, p.Code, from, to)
					days := make([]ARIPlanDay, len(priced))
					for i := range priced {
						days[i] = ARIPlanDay{RestrictionDay: restricted[i], Amount: priced[i].Amount,
							Currency: priced[i].Currency, Why: priced[i].Why}
					}
					row.Plans = append(row.Plans, ARIPlan{RatePlan: p.Code, Days: days})
				}
				out.RoomTypes = append(out.RoomTypes, row)
			}
			if roomTypeID != "" && len(out.RoomTypes) == 0 {
				return fmt.Errorf("%w: hotel %s has no room type %q", domain.ErrNotFound, hotelID, roomTypeID)
			}
			return nil
		})
	return out, err
}
