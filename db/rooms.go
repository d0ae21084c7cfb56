package db

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bookflow/bookflow/domain"
)

// A hotel's physical rooms and the bookings' rooms, night by night (issue 39, migration 00055):
// the database refuses two bookings in one room on one night (one_booking_per_room_and_night).

// PutRooms gives room type roomTypeID of hotelID its rooms by number: the numbers not yet known
// are added; a number another room type has is refused. It returns the room type's numbers.
func (s *Store) PutRooms(ctx context.Context, hotelID, roomTypeID string, numbers []string) ([]string, error) {
	var out []string
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		resource, err := roomTypeResource(ctx, tx, hotelID, roomTypeID)
		if err != nil {
			return err
		}
		for _, n := range numbers {
			var other string
			err := tx.QueryRow(ctx, `INSERT INTO rooms (hotel_id, room_type, number) VALUES ($1, $2, $3)
				ON CONFLICT (hotel_id, number) DO UPDATE SET number = EXCLUDED.number
				RETURNING (SELECT code FROM resources WHERE id = rooms.room_type)`, hotelID, resource, n).Scan(&other)
			if err != nil {
				return err
			}
			if other != roomTypeID {
				return fmt.Errorf("%w: room %s of hotel %s is a %s", domain.ErrConflict, n, hotelID, other)
			}
		}
		rows, err := tx.Query(ctx, `SELECT number FROM rooms WHERE room_type = $1 ORDER BY number`, resource)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	return out, err
}

// RoomAssignment is a booking's room over nights [From, To).
type RoomAssignment struct {
	Room       string      `json:"room"`
	From       domain.Date `json:"from"`
	To         domain.Date `json:"to"`
	AssignedBy string      `json:"assignedBy,omitempty"`
}

// AssignRoom puts booking id's guest in room number from night from (zero: its check-in) to its
// check-out: the room it had from then on (of as many as the booking has rooms, the one moved
// out of, named by moveFrom, or the only one) ends the night before, a move. The room must be of
// the booking's room type and free those nights: another booking's is refused, by the database.
func (s *Store) AssignRoom(ctx context.Context, id, number, moveFrom string, from domain.Date) ([]RoomAssignment, error) {
	var out []RoomAssignment
	err := s.inBookingTx(ctx, id, func(tx pgx.Tx) error {
		b, err := scanBooking(tx.QueryRow(ctx, `SELECT `+bookingColumns+`
			FROM bookings b JOIN resources r ON r.id = b.resource_id WHERE b.id = $1 FOR UPDATE OF b`, id))
		if err != nil {
			return err
		}
		if from.IsZero() {
			from = b.CheckIn
		}
		switch {
		case b.VenueID != "":
			return fmt.Errorf("%w: booking %s is a venue's: it has no room", domain.ErrInvalid, id)
		case !b.Status.HoldsInventory():
			return fmt.Errorf("%w: booking %s is %s and holds no nights", domain.ErrConflict, id, b.Status)
		case from.Before(b.CheckIn) || !from.Before(b.CheckOut):
			return fmt.Errorf("%w: from %s is not a night of the stay %s to %s", domain.ErrInvalid, from, b.CheckIn, b.CheckOut)
		}
		var room int64
		var roomType string
		err = tx.QueryRow(ctx, `SELECT m.id, r.code FROM rooms m JOIN resources r ON r.id = m.room_type
			WHERE m.hotel_id = $1 AND m.number = $2`, b.HotelID, number).Scan(&room, &roomType)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return fmt.Errorf("%w: hotel %s has no room %s", domain.ErrNotFound, b.HotelID, number)
		case err != nil:
			return err
		case roomType != b.RoomTypeID:
			return fmt.Errorf("%w: room %s is a %s, the booking's rooms are %s", domain.ErrInvalid, number, roomType, b.RoomTypeID)
		}
		current, err := bookingRooms(ctx, tx, id)
		if err != nil {
			return err
		}
		// The rooms the booking has on night from: a move ends one of them there.
		var held []string
		for _, a := range current {
			if !from.Before(a.From) && from.Before(a.To) {
				held = append(held, a.Room)
			}
		}
		switch {
		case slices.Contains(held, number):
			out = current
			return nil // already there
		case moveFrom == "" && len(held) == 1 && b.Quantity == 1:
			moveFrom = held[0]
		case moveFrom == "" && len(held) >= b.Quantity:
			return fmt.Errorf("%w: the booking has its %d room(s) on %s: name the room the guest moves out of", domain.ErrInvalid,
				b.Quantity, from)
		case moveFrom != "" && !slices.Contains(held, moveFrom):
			return fmt.Errorf("%w: the booking does not have room %s on %s", domain.ErrInvalid, moveFrom, from)
		}
		if moveFrom != "" {
			if _, err := tx.Exec(ctx, `DELETE FROM room_assignments a USING rooms m WHERE a.room_id = m.id
					AND a.booking_id = $1 AND m.number = $2 AND m.hotel_id = $3 AND lower(a.nights) >= $4::date`,
				id, moveFrom, b.HotelID, from.Time()); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE room_assignments a SET nights = daterange(lower(a.nights), $4::date)
				FROM rooms m WHERE a.room_id = m.id AND a.booking_id = $1 AND m.number = $2 AND m.hotel_id = $3
					AND a.nights @> $4::date`, id, moveFrom, b.HotelID, from.Time()); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `INSERT INTO room_assignments (booking_id, room_id, nights, assigned_by)
			VALUES ($1, $2, daterange($3::date, $4::date), $5)`, id, room, from.Time(), b.CheckOut.Time(), actorOf(ctx))
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.ConstraintName == "one_booking_per_room_and_night" {
			return fmt.Errorf("%w: room %s is another booking's on a night from %s to %s", domain.ErrConflict, number,
				from, b.CheckOut)
		}
		if errors.As(err, &pgErr) && pgErr.ConstraintName == "room_out_of_order_has_no_guest" { // migration 00057
			return fmt.Errorf("%w: room %s is out of order on a night from %s to %s", domain.ErrConflict, number,
				from, b.CheckOut)
		}
		if err != nil {
			return err
		}
		out, err = bookingRooms(ctx, tx, id)
		return err
	})
	return out, err
}

// BookingRooms are booking id's rooms, by the nights they cover.
func (s *Store) BookingRooms(ctx context.Context, id string) ([]RoomAssignment, error) {
	return bookingRooms(ctx, s.pool, id)
}

func bookingRooms(ctx context.Context, q querier, id string) ([]RoomAssignment, error) {
	rows, err := q.Query(ctx, `SELECT m.number, lower(a.nights), upper(a.nights), a.assigned_by
		FROM room_assignments a JOIN rooms m ON m.id = a.room_id WHERE a.booking_id = $1 ORDER BY lower(a.nights), m.number`, id)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (RoomAssignment, error) {
		var a RoomAssignment
		var from, to time.Time
		err := r.Scan(&a.Room, &from, &to, &a.AssignedBy)
		a.From, a.To = domain.DateOf(from, time.UTC), domain.DateOf(to, time.UTC)
		return a, err
	})
}

// RoomNight is one room of a hotel on a night: free, or whose booking it is.
type RoomNight struct {
	Room      string        `json:"room"`
	RoomType  string        `json:"roomTypeId"`
	BookingID string        `json:"bookingId,omitempty"`
	Status    domain.Status `json:"status,omitempty"` // the booking's: HOLD, CONFIRMED, COMPLETED (in)
	Arrives   bool          `json:"arrives,omitempty"`
	Leaves    bool          `json:"leaves,omitempty"` // its stay's last night
	// OutOfOrder is the range the room is out of order over, when it is that night.
	OutOfOrder *OutOfOrder `json:"outOfOrder,omitempty"`
}

// RoomsOn are hotel hotelID's rooms on night day, each free, with its booking, or out of order.
func (s *Store) RoomsOn(ctx context.Context, hotelID string, day domain.Date) ([]RoomNight, error) {
	rows, err := s.pool.Query(ctx, `SELECT m.number, r.code, COALESCE(b.id, ''), COALESCE(b.status, ''),
			COALESCE(b.unit_from::date = $2::date, false), COALESCE(b.unit_to::date = $2::date + 1, false),
			lower(o.nights), upper(o.nights), o.reason, o.put_by
		FROM rooms m JOIN resources r ON r.id = m.room_type
			LEFT JOIN room_assignments a ON a.room_id = m.id AND a.nights @> $2::date
			LEFT JOIN bookings b ON b.id = a.booking_id
			LEFT JOIN room_out_of_order o ON o.room_id = m.id AND o.nights @> $2::date
		WHERE m.hotel_id = $1 ORDER BY m.number`, hotelID, day.Time())
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (RoomNight, error) {
		var n RoomNight
		var from, to *time.Time
		var reason, putBy *string
		err := r.Scan(&n.Room, &n.RoomType, &n.BookingID, &n.Status, &n.Arrives, &n.Leaves, &from, &to, &reason, &putBy)
		if err == nil && from != nil {
			n.OutOfOrder = &OutOfOrder{Room: n.Room, From: domain.DateOf(*from, time.UTC), To: domain.DateOf(*to, time.UTC),
				Reason: *reason, PutBy: *putBy}
		}
		return n, err
	})
}

// FreeRooms are the rooms of hotelID's room type roomTypeID free on every night of [from, to):
// no booking's and not out of order on any of them.
func (s *Store) FreeRooms(ctx context.Context, hotelID, roomTypeID string, from, to domain.Date) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT m.number FROM rooms m JOIN resources r ON r.id = m.room_type
		WHERE m.hotel_id = $1 AND r.code = $2
			AND NOT EXISTS (SELECT 1 FROM room_assignments a WHERE a.room_id = m.id AND a.nights && daterange($3::date, $4::date))
			AND NOT EXISTS (SELECT 1 FROM room_out_of_order o WHERE o.room_id = m.id AND o.nights && daterange($3::date, $4::date))
		ORDER BY m.number`, hotelID, roomTypeID, from.Time(), to.Time())
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
