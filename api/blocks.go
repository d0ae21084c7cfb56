package api

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// Group blocks (docs/groups-and-blocks.md): the desk of a hotel, or an admin, sets rooms aside
// for a group; any staff of the hotel reads them. Guests pick them up with the group code in an
// ordinary hold's body.

// createBlock stores a tentative block at a hotel (201, Location).
func (s *Server) createBlock(c echo.Context) error {
	hotelID := c.Param("hotelId")
	if !principal(c).CanBook(hotelID) {
		return errOtherHotel(hotelID)
	}
	var req domain.BlockRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	b, err := s.store.CreateBlock(c.Request().Context(), hotelID, principal(c).Subject, req)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Location", "/api/v1/staff/blocks/"+b.ID)
	return c.JSON(http.StatusCreated, b)
}

// hotelBlocks lists a hotel's blocks with a night in [from, to) (default: from today at the
// hotel, a year).
func (s *Server) hotelBlocks(c echo.Context) error {
	hotelID := c.Param("hotelId")
	if !principal(c).CanRead(hotelID) {
		return errOtherHotel(hotelID)
	}
	ctx := c.Request().Context()
	m, err := s.hotelMeta(ctx, hotelID)
	if err != nil {
		return err
	}
	from := domain.DateOf(s.cfg.Now(), m.hotel.Location)
	to := from.AddDays(366)
	if from, to, err = optionalRange(c, from, to); err != nil {
		return err
	}
	blocks, err := s.store.HotelBlocks(ctx, hotelID, from, to)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"blocks": blocks})
}

// optionalRange reads from and to from the query, each defaulting, from before to.
func optionalRange(c echo.Context, from, to domain.Date) (domain.Date, domain.Date, error) {
	for _, q := range []struct {
		name string
		into *domain.Date
	}{{"from", &from}, {"to", &to}} {
		if v := c.QueryParam(q.name); v != "" {
			d, err := domain.ParseDate(v)
			if err != nil {
				return from, to, err
			}
			*q.into = d
		}
	}
	if !from.Before(to) {
		return from, to, newError(http.StatusBadRequest, "invalid_request", "from must be before to")
	}
	return from, to, nil
}

// staffBlock reads the block of the path, for staff who may read its hotel (book, when forBooking).
func (s *Server) staffBlock(c echo.Context, forBooking bool) (db.Block, error) {
	b, err := s.store.GetBlock(c.Request().Context(), c.Param("blockId"))
	if err != nil {
		return b, err
	}
	p := principal(c)
	if (forBooking && !p.CanBook(b.HotelID)) || !p.CanRead(b.HotelID) {
		return b, errOtherHotel(b.HotelID)
	}
	return b, nil
}

// getBlock answers a block with its nights.
func (s *Server) getBlock(c echo.Context) error {
	b, err := s.staffBlock(c, false)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, b)
}

// blockChanges answers a block's audit trail, oldest first.
func (s *Server) blockChanges(c echo.Context) error {
	b, err := s.staffBlock(c, false)
	if err != nil {
		return err
	}
	changes, err := s.store.BlockChanges(c.Request().Context(), b.ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"changes": changes})
}

// makeBlockDefinite takes a tentative block's rooms from sale, all nights or none.
func (s *Server) makeBlockDefinite(c echo.Context) error {
	b, err := s.staffBlock(c, true)
	if err != nil {
		return err
	}
	if b, err = s.store.MakeBlockDefinite(c.Request().Context(), b.ID, principal(c).Subject); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, b)
}

// cancelBlock ends a block; what it still holds goes back to sale. The body may give a reason.
func (s *Server) cancelBlock(c echo.Context) error {
	b, err := s.staffBlock(c, true)
	if err != nil {
		return err
	}
	var body struct {
		Reason string `json:"reason"`
	}
	if c.Request().ContentLength != 0 {
		if err := decodeJSON(c, &body); err != nil {
			return err
		}
	}
	if domain.Longer(body.Reason, 500) {
		return newError(http.StatusBadRequest, "invalid_request", "reason takes at most 500 characters")
	}
	if err := domain.ValidateText("reason", body.Reason); err != nil {
		return err
	}
	if b, err = s.store.CancelBlock(c.Request().Context(), b.ID, principal(c).Subject, body.Reason); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, b)
}

// releaseBlockRooms gives rooms of a definite block back to sale early, or washes it by a
// percent.
func (s *Server) releaseBlockRooms(c echo.Context) error {
	b, err := s.staffBlock(c, true)
	if err != nil {
		return err
	}
	var change domain.BlockRoomsChange
	if err := decodeJSON(c, &change); err != nil {
		return err
	}
	if err := change.Validate(); err != nil {
		return err
	}
	if b, err = s.store.ReleaseBlockRooms(c.Request().Context(), b.ID, principal(c).Subject, change); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, b)
}

// groupNight is a night of a group's availability as its guests see it.
type groupNight struct {
	Date      domain.Date `json:"date"`
	Remaining int         `json:"remaining"`
	Tentative int         `json:"tentative"`
	Picked    int         `json:"picked"`
	Price     *int64      `json:"price,omitempty"`
}

// groupAvailability answers what a group's block has left per night, for whoever may book it:
// its guests (a block open to direct bookings), the agents of its channels, and staff. The
// organiser and the block's name are not shown; anyone else gets 404, as for no such group.
func (s *Server) groupAvailability(c echo.Context) error {
	hotelID, code := c.Param("hotelId"), c.Param("groupCode")
	if err := domain.ValidateGroupCode(code); err != nil {
		return err
	}
	b, err := s.store.HotelBlockByCode(c.Request().Context(), hotelID, code)
	if err != nil {
		return err
	}
	p := principal(c)
	var channel string
	if _, agent := p.SellsThrough(); agent != "" {
		pty, err := s.agentParty(c) // the stored agent, never the token's claim alone
		if err != nil {
			return err
		}
		channel = pty.channel
	}
	mayBook := p.CanRead(hotelID) || (channel == "" && p.Has(domain.RoleCustomer) && b.Direct) ||
		(channel != "" && slices.Contains(b.Channels, channel))
	if !mayBook {
		return fmt.Errorf("%w: hotel %s has no group %s", domain.ErrNotFound, hotelID, code)
	}
	nights := make([]groupNight, len(b.Nights))
	for i, n := range b.Nights {
		nights[i] = groupNight{Date: n.Date, Remaining: n.Remaining, Tentative: n.Tentative, Picked: n.Picked, Price: n.Price}
	}
	return c.JSON(http.StatusOK, map[string]any{"hotelId": b.HotelID, "groupCode": b.GroupCode, "roomTypeId": b.RoomTypeID,
		"status": b.Status, "ratePlan": b.RatePlan, "currency": b.Currency, "overflow": b.Overflow, "nights": nights})
}
