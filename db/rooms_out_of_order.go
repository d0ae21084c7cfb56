package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bookflow/bookflow/domain"
)

// Out-of-order rooms (issue 39, migration 00057): a physical room out of use for a range of
// nights, with a reason. They are the blocked rooms bookflow already counts: each night a room is
// out of order is one more blocked room of its room type (setBlocked, under the nights' lock,
// which refuses blocking a room that is not free), so the room type sells one room fewer. The
// database refuses two ranges of one room overlapping and a guest in a room out of order.

// OutOfOrder is a room out of order over nights [From, To).
type OutOfOrder struct {
	Room   string      `json:"room"`
	From   domain.Date `json:"from"`
	To     domain.Date `json:"to"`
	Reason string      `json:"reason"`
	PutBy  string      `json:"putBy,omitempty"`
}

// outOfOrderRoom finds hotel hotelID's room number and its room type.
func outOfOrderRoom(ctx context.Context, tx pgx.Tx, hotelID, number string) (room, resource int64, roomType string, err error) {
	err = tx.QueryRow(ctx, `SELECT m.id, m.room_type, r.code FROM rooms m JOIN resources r ON r.id = m.room_type
		WHERE m.hotel_id = $1 AND m.number = $2`, hotelID, number).Scan(&room, &resource, &roomType)
	if errors.Is(err, pgx.ErrNoRows) {
		err = fmt.Errorf("%w: hotel %s has no room %s", domain.ErrNotFound, hotelID, number)
	}
	return room, resource, roomType, err
}

// PutRoomOutOfOrder takes room number of hotelID out of order over nights [from, to) for
// reason, all or nothing: a guest in the room on one of those nights, a night of the range it is
// already out of order, or a night with no room of its type free to block is a conflict.
func (s *Store) PutRoomOutOfOrder(ctx context.Context, hotelID, number string, from, to domain.Date, reason string) (OutOfOrder, error) {
	out := OutOfOrder{Room: number, From: from, To: to, Reason: reason, PutBy: actorOf(ctx)}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		room, resource, roomType, err := outOfOrderRoom(ctx, tx, hotelID, number)
		if err != nil {
			return err
		}
		var booking string
		var night time.Time
		err = tx.QueryRow(ctx, `SELECT a.booking_id, greatest(lower(a.nights), $2::date) FROM room_assignments a
			WHERE a.room_id = $1 AND a.nights && daterange($2::date, $3::date) ORDER BY lower(a.nights) LIMIT 1`,
			room, from.Time(), to.Time()).Scan(&booking, &night)
		switch {
		case err == nil:
			return fmt.Errorf("%w: room %s has a guest on %s (booking %s): move them first", domain.ErrConflict,
				number, domain.DateOf(night, time.UTC), booking)
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
		// The nights' lock first, then the room's (the insert's trigger): an amendment holds
		// nights before its booking, and an assignment its booking before its room.
		p := BlockRooms{HotelID: hotelID, RoomTypeID: roomType, From: from, To: to, Blocked: 1}
		if _, err := setBlocked(ctx, tx, resource, p, true); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO room_out_of_order (room_id, nights, reason, put_by)
			VALUES ($1, daterange($2::date, $3::date), $4, $5)`, room, from.Time(), to.Time(), reason, out.PutBy)
		return outOfOrderRefusal(err, number, from, to)
	})
	return out, err
}

// outOfOrderRefusal says which database refusal err is.
func outOfOrderRefusal(err error, number string, from, to domain.Date) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.ConstraintName {
		case "one_out_of_order_range_per_room_and_night":
			return fmt.Errorf("%w: room %s is already out of order on a night of [%s, %s)", domain.ErrConflict, number, from, to)
		case "room_out_of_order_has_no_guest":
			return fmt.Errorf("%w: room %s has a guest on a night of [%s, %s): move them first", domain.ErrConflict, number, from, to)
		}
	}
	return err
}

// PutRoomBackInOrder puts room number of hotelID back in order on the nights of [from, to) it
// is out of order (a range reaching outside keeps its other nights, with its reason), lowering
// its room type's blocked rooms on each by one; it returns how many nights came back. A range
// with no night out of order is a conflict.
func (s *Store) PutRoomBackInOrder(ctx context.Context, hotelID, number string, from, to domain.Date) (int, error) {
	var back int
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		room, resource, roomType, err := outOfOrderRoom(ctx, tx, hotelID, number)
		if err != nil {
			return err
		}
		// The nights' lock before the rows' delete, as PutRoomOutOfOrder takes it before its insert:
		// the delete waited on by that insert's overlap check never waits on its nights (a deadlock).
		if _, err := lockForGiveBack(ctx, tx, []line{{resourceID: resource, from: from.Time(), to: to.Time()}}); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `DELETE FROM room_out_of_order WHERE room_id = $1 AND nights && daterange($2::date, $3::date)
			RETURNING lower(nights), upper(nights), reason, put_by`, room, from.Time(), to.Time())
		if err != nil {
			return err
		}
		type taken struct {
			from, to      time.Time
			reason, putBy string
		}
		ranges, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (taken, error) {
			var t taken
			return t, r.Scan(&t.from, &t.to, &t.reason, &t.putBy)
		})
		if err != nil {
			return err
		}
		if len(ranges) == 0 {
			return fmt.Errorf("%w: room %s is not out of order on any night of [%s, %s)", domain.ErrConflict, number, from, to)
		}
		for _, t := range ranges {
			lo, hi := domain.DateOf(t.from, time.UTC), domain.DateOf(t.to, time.UTC)
			p := BlockRooms{HotelID: hotelID, RoomTypeID: roomType, From: later(from, lo), To: earlier(to, hi), Blocked: -1}
			n, err := setBlocked(ctx, tx, resource, p, true) // the nights' lock before the room's, as above
			if err != nil {
				return err
			}
			back += n
			// The nights of the range outside [from, to) stay out of order; those inside came back.
			for _, keep := range [][2]domain.Date{{lo, earlier(from, hi)}, {later(to, lo), hi}} {
				if keep[0].Before(keep[1]) {
					if _, err := tx.Exec(ctx, `INSERT INTO room_out_of_order (room_id, nights, reason, put_by)
						VALUES ($1, daterange($2::date, $3::date), $4, $5)`, room, keep[0].Time(), keep[1].Time(), t.reason, t.putBy); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	return back, err
}

func earlier(a, b domain.Date) domain.Date {
	if b.Before(a) {
		return b
	}
	return a
}

func later(a, b domain.Date) domain.Date {
	if b.After(a) {
		return b
	}
	return a
}
