package api

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// A hotel's physical rooms and the bookings' rooms (issue 39; db/rooms.go): the admin names each
// room type's rooms, the desk puts a guest in a room (at booking, at check-in, or a move from a
// night on), and the day shows each room free or whose it is.

// putRooms gives a room type its rooms by number (adding those not yet known).
func (s *Server) putRooms(c echo.Context) error {
	hotel, roomType := c.Param("hotelId"), c.Param("roomTypeId")
	var body struct {
		Numbers []string `json:"numbers"`
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if len(body.Numbers) == 0 || len(body.Numbers) > 500 {
		return newError(http.StatusBadRequest, "invalid_request", "numbers lists 1 to 500 rooms")
	}
	for _, n := range body.Numbers {
		if err := domain.ValidateRoomNumber(n); err != nil {
			return err
		}
	}
	numbers, err := s.store.PutRooms(c.Request().Context(), hotel, roomType, body.Numbers)
	if err != nil {
		return err
	}
	if err := s.audit(c, "put-rooms", "", "", map[string]any{"hotelId": hotel, "roomTypeId": roomType, "numbers": body.Numbers}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"hotelId": hotel, "roomTypeId": roomType, "numbers": numbers})
}

// assignRoom puts the booking's guest in a room from a night on (its check-in by default); a
// booking with its rooms on that night moves out of one (moveFrom, or its only room).
func (s *Server) assignRoom(c echo.Context) error {
	b, err := s.staffBooking(c, domain.Principal.CanBookAt)
	if err != nil {
		return err
	}
	var body struct {
		Room     string      `json:"room"`
		From     domain.Date `json:"from"`
		MoveFrom string      `json:"moveFrom"`
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if err := domain.ValidateRoomNumber(body.Room); err != nil {
		return err
	}
	ctx := db.WithActor(c.Request().Context(), principal(c).Subject)
	rooms, err := s.store.AssignRoom(ctx, b.ID, body.Room, body.MoveFrom, body.From)
	if err != nil {
		return err
	}
	if err := s.audit(c, "assign-room", b.ID, "", map[string]any{"room": body.Room, "from": body.From,
		"moveFrom": body.MoveFrom}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"bookingId": b.ID, "rooms": rooms})
}

// hotelRooms are the hotel's rooms on a night (?date, the hotel's today by default).
func (s *Server) hotelRooms(c echo.Context) error {
	hotel := c.Param("hotelId")
	if !principal(c).CanRead(hotel) {
		return errOtherHotel(hotel)
	}
	ctx := c.Request().Context()
	var day domain.Date
	if v := c.QueryParam("date"); v != "" {
		d, err := domain.ParseDate(v)
		if err != nil {
			return fmt.Errorf("date: %w", err)
		}
		day = d
	} else {
		m, err := s.hotelMeta(ctx, hotel)
		if err != nil {
			return err
		}
		day = domain.DateOf(s.cfg.Now(), m.hotel.Location)
	}
	rooms, err := s.store.RoomsOn(ctx, hotel, day)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"hotelId": hotel, "date": day, "rooms": rooms})
}
