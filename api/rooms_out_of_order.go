package api

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// Out-of-order rooms and the rooms free for a booking (issue 39; db/rooms_out_of_order.go). The
// desk of the hotel and admins put a room out of order: it is a fact of the building the desk
// sees first (the blocked-rooms count, which admins and supplier staff set for stock, moves with
// it, under the same rules).

// roomRange is the body of the out-of-order routes.
type roomRange struct {
	From   domain.Date `json:"from"`
	To     domain.Date `json:"to"`
	Reason string      `json:"reason"`
}

// deskRoom reads the hotel and room in the path and the body, for a desk of the hotel.
func deskRoom(c echo.Context, body *roomRange) (hotel, room string, err error) {
	hotel, room = c.Param("hotelId"), c.Param("room")
	if !principal(c).CanBook(hotel) {
		return "", "", errOtherHotel(hotel)
	}
	if err := domain.ValidateRoomNumber(room); err != nil {
		return "", "", err
	}
	if err := decodeJSON(c, body); err != nil {
		return "", "", err
	}
	return hotel, room, validateRange(domain.Stay{CheckIn: body.From, CheckOut: body.To})
}

// putRoomOutOfOrder takes a room out of order over nights [from, to) with a reason, raising its
// room type's blocked rooms on each by one. Audited.
func (s *Server) putRoomOutOfOrder(c echo.Context) error {
	var body roomRange
	hotel, room, err := deskRoom(c, &body)
	if err != nil {
		return err
	}
	body.Reason = strings.TrimSpace(body.Reason)
	switch {
	case body.Reason == "":
		return fmt.Errorf("%w: a room out of order has a reason", domain.ErrInvalid)
	case domain.Longer(body.Reason, maxReason):
		return fmt.Errorf("%w: reason is at most %d characters", domain.ErrInvalid, maxReason)
	}
	ctx := db.WithActor(c.Request().Context(), principal(c).Subject)
	out, err := s.store.PutRoomOutOfOrder(ctx, hotel, room, body.From, body.To, body.Reason)
	if err != nil {
		return err
	}
	if err := s.audit(c, "room-out-of-order", "", body.Reason, map[string]any{"hotelId": hotel, "room": room,
		"from": body.From, "to": body.To}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"hotelId": hotel, "outOfOrder": out})
}

// putRoomBackInOrder puts a room back in order on the nights of [from, to) it is out of order,
// lowering its room type's blocked rooms on each by one. Audited.
func (s *Server) putRoomBackInOrder(c echo.Context) error {
	var body roomRange
	hotel, room, err := deskRoom(c, &body)
	if err != nil {
		return err
	}
	n, err := s.store.PutRoomBackInOrder(c.Request().Context(), hotel, room, body.From, body.To)
	if err != nil {
		return err
	}
	if err := s.audit(c, "room-back-in-order", "", "", map[string]any{"hotelId": hotel, "room": room,
		"from": body.From, "to": body.To, "nightsBack": n}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"hotelId": hotel, "room": room, "from": body.From, "to": body.To,
		"nightsBack": n})
}

// freeRooms are the rooms of the booking's room type free on each of its nights from ?from (its
// check-in by default) to its check-out: those it may be put in or moved to.
func (s *Server) freeRooms(c echo.Context) error {
	b, err := s.staffBooking(c, domain.Principal.CanReadAt)
	if err != nil {
		return err
	}
	if b.VenueID != "" {
		return fmt.Errorf("%w: booking %s is a venue's: it has no room", domain.ErrInvalid, b.ID)
	}
	from := b.CheckIn
	if v := c.QueryParam("from"); v != "" {
		if from, err = domain.ParseDate(v); err != nil {
			return fmt.Errorf("from: %w", err)
		}
		if from.Before(b.CheckIn) || !from.Before(b.CheckOut) {
			return fmt.Errorf("%w: from %s is not a night of the stay %s to %s", domain.ErrInvalid, from, b.CheckIn, b.CheckOut)
		}
	}
	rooms, err := s.store.FreeRooms(c.Request().Context(), b.HotelID, b.RoomTypeID, from, b.CheckOut)
	if err != nil {
		return err
	}
	if rooms == nil {
		rooms = []string{}
	}
	return c.JSON(http.StatusOK, map[string]any{"bookingId": b.ID, "roomTypeId": b.RoomTypeID, "from": from,
		"to": b.CheckOut, "rooms": rooms})
}
