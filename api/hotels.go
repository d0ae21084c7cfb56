package api

import (
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// maxInventoryRangeDays bounds one admin inventory call (two years and a day).
const maxInventoryRangeDays = 2*366 + 1

// maxTotalRooms bounds a room type's total on one night.
const maxTotalRooms = 100_000

type availabilityView struct {
	HotelID   string                    `json:"hotelId"`
	CheckIn   domain.Date               `json:"checkIn"`
	CheckOut  domain.Date               `json:"checkOut"`
	Nights    int                       `json:"nights"`
	ChannelID string                    `json:"channelId,omitempty"`
	AgentID   string                    `json:"agentId,omitempty"`
	RoomTypes []db.RoomTypeAvailability `json:"roomTypes"`
}

// availability answers, per room type, the rooms left for the whole stay (the minimum over its
// nights) and for each night, as the caller's channel and agent may sell them under the default
// plan: a stay a sale rule refuses shows 0 and the rule. Each room type's offers price every plan
// the caller may sell. At a direct_connect supplier's hotel the supplier is asked (no offers:
// the supplier prices the stay).
func (s *Server) availability(c echo.Context) error {
	hotelID := c.Param("hotelId")
	if err := domain.ValidateID("hotelId", hotelID); err != nil {
		return err
	}
	stay, err := queryStay(c, s.cfg.Limits.MaxNights)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	party, err := s.saleParty(c, hotelID)
	if err != nil {
		return err
	}
	m, err := s.hotelMeta(ctx, hotelID)
	if err != nil {
		return err
	}
	sup := m.supplier
	rooms, cached := []db.RoomTypeAvailability(nil), false
	if party.channel == "" && sup.Mode != db.ModeDirectConnect {
		rooms, cached = s.cachedAvailability(ctx, m, stay)
	}
	if !cached {
		if rooms, err = s.store.Availability(ctx, hotelID, party.channel, stay); err != nil {
			return err
		}
	}
	today := domain.DateOf(s.cfg.Now(), m.hotel.Location)
	slabs := takeOfferSlabs()
	defer slabs.release() // once the answer is written
	for i := range rooms {
		room := &rooms[i]
		if sup.Mode != db.ModeDirectConnect {
			room.Offers = offers(m, party, *room, stay, today, slabs)
		}
		v := domain.EvaluateSale(m.rules, party.sale(hotelID, room.RoomTypeID, stay, today))
		switch {
		case !v.Allowed:
			room.Available, room.UnavailableBecause = 0, v.Refusal.Why
		case sup.Mode == db.ModeDirectConnect:
			if err := s.askSupplier(ctx, sup, hotelID, stay, 1, room); err != nil {
				return err
			}
		}
	}
	return writeAvailability(c, m, availabilityView{HotelID: hotelID, CheckIn: stay.CheckIn, CheckOut: stay.CheckOut,
		Nights: stay.Nights(), ChannelID: party.channel, AgentID: party.agent, RoomTypes: rooms})
}

// queryStay reads ?checkIn=&checkOut= as a stay.
func queryStay(c echo.Context, maxNights int) (domain.Stay, error) {
	checkIn, err := domain.ParseDate(c.QueryParam("checkIn"))
	if err != nil {
		return domain.Stay{}, fmt.Errorf("checkIn: %w", err)
	}
	checkOut, err := domain.ParseDate(c.QueryParam("checkOut"))
	if err != nil {
		return domain.Stay{}, fmt.Errorf("checkOut: %w", err)
	}
	stay := domain.Stay{CheckIn: checkIn, CheckOut: checkOut}
	return stay, stay.Validate(maxNights)
}

type inventoryRequest struct {
	From       domain.Date `json:"from"`
	To         domain.Date `json:"to"`
	TotalRooms *int        `json:"totalRooms"`
	// Unlimited sells the nights without a total ("a price means a room"); totalRooms is then
	// left out.
	Unlimited bool   `json:"unlimited,omitempty"`
	TimeZone  string `json:"timeZone,omitempty"`
	// Country (ISO 3166-1 alpha-2), when given, sets the hotel's country, where the desk's
	// national phone numbers are read; left out keeps it.
	Country string `json:"country,omitempty"`
	// Rate (minor units) and Currency optionally set the nightly rate for the range; a rate of
	// 0 needs Free (see validateRate).
	Rate     *int64 `json:"rate,omitempty"`
	Currency string `json:"currency,omitempty"`
	Free     bool   `json:"free,omitempty"`
}

type inventoryView struct {
	HotelID    string      `json:"hotelId"`
	RoomTypeID string      `json:"roomTypeId"`
	From       domain.Date `json:"from"`
	To         domain.Date `json:"to"`
	Nights     int         `json:"nights"`
	TotalRooms *int        `json:"totalRooms"` // null: unlimited
	Unlimited  bool        `json:"unlimited,omitempty"`
}

// setInventory sets a room type's total rooms for the nights [from, to), creating the hotel
// and room type when needed.
func (s *Server) setInventory(c echo.Context) error {
	var req inventoryRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	p, err := req.params(c.Param("hotelId"), c.Param("roomTypeId"))
	if err != nil {
		return err
	}
	if err := s.store.SetInventory(c.Request().Context(), p); err != nil {
		return err
	}
	s.meta.forget()
	if err := s.audit(c, "set-inventory", "", "", map[string]any{"hotelId": p.HotelID, "roomTypeId": p.RoomTypeID,
		"request": req}); err != nil {
		return err
	}
	v := inventoryView{HotelID: p.HotelID, RoomTypeID: p.RoomTypeID, From: p.From, To: p.To,
		Nights: domain.Stay{CheckIn: p.From, CheckOut: p.To}.Nights(), TotalRooms: &p.TotalRooms, Unlimited: p.Unlimited}
	if p.Unlimited {
		v.TotalRooms = nil
	}
	return c.JSON(http.StatusOK, v)
}

// params checks an inventory request for a hotel's room type and turns it into the store's
// parameters.
func (req inventoryRequest) params(hotelID, roomTypeID string) (db.SetInventoryParams, error) {
	p := db.SetInventoryParams{HotelID: hotelID, RoomTypeID: roomTypeID}
	if err := domain.ValidateID("hotelId", p.HotelID); err != nil {
		return p, err
	}
	if err := domain.ValidateID("roomTypeId", p.RoomTypeID); err != nil {
		return p, err
	}
	if err := validateRange(domain.Stay{CheckIn: req.From, CheckOut: req.To}); err != nil {
		return p, err
	}
	if req.Rate != nil || req.Currency != "" || req.Free {
		rate, err := validateRate(req.Rate, req.Currency, req.Free)
		if err != nil {
			return p, err
		}
		p.Rate, p.Free = &rate, req.Free
	}
	switch {
	case req.Unlimited && req.TotalRooms != nil:
		return p, fmt.Errorf("%w: give totalRooms or unlimited, not both", domain.ErrInvalid)
	case req.Unlimited:
		p.Unlimited = true
		req.TotalRooms = new(int)
	case req.TotalRooms == nil:
		return p, fmt.Errorf("%w: totalRooms (or unlimited: true) is required", domain.ErrInvalid)
	case *req.TotalRooms < 0 || *req.TotalRooms > maxTotalRooms:
		return p, fmt.Errorf("%w: totalRooms must be between 0 and %d", domain.ErrInvalid, maxTotalRooms)
	}
	if req.TimeZone != "" {
		if _, err := time.LoadLocation(req.TimeZone); err != nil || req.TimeZone == "Local" {
			return p, fmt.Errorf("%w: timeZone %q is not an IANA time zone name", domain.ErrInvalid, req.TimeZone)
		}
	}
	if err := domain.ValidateCountry("country", req.Country); err != nil {
		return p, err
	}
	p.From, p.To, p.TotalRooms, p.TimeZone, p.Country = req.From, req.To, *req.TotalRooms, req.TimeZone, req.Country
	return p, nil
}

func validateRange(span domain.Stay) error {
	switch {
	case span.CheckIn.IsZero() || span.CheckOut.IsZero():
		return fmt.Errorf("%w: from and to are required", domain.ErrInvalid)
	case !span.CheckOut.After(span.CheckIn):
		return fmt.Errorf("%w: to must be after from", domain.ErrInvalid)
	case span.Nights() > maxInventoryRangeDays:
		return fmt.Errorf("%w: one call may set at most %d nights", domain.ErrInvalid, maxInventoryRangeDays)
	}
	return nil
}

// maxRate bounds a nightly rate: ten million in major units.
const maxRate = 1_000_000_000

// validateRate checks a nightly rate. A night is sold at a rate of 0 only when that was meant
// (free: true): a 0 sent without it is refused, so a client that left the rate out or zeroed it
// by mistake never sells rooms for nothing (the reservation refuses such a night too).
func validateRate(amount *int64, currency string, free bool) (domain.Money, error) {
	if amount == nil || *amount < 0 || *amount > maxRate {
		return domain.Money{}, fmt.Errorf("%w: rate must be a whole number of minor units between 0 and %d", domain.ErrInvalid, int64(maxRate))
	}
	if *amount == 0 && !free {
		return domain.Money{}, fmt.Errorf("%w: a rate of 0 sells the nights for nothing: send \"free\": true with it to mean that", domain.ErrInvalid)
	}
	if *amount != 0 && free {
		return domain.Money{}, fmt.Errorf("%w: \"free\": true goes with a rate of 0 only", domain.ErrInvalid)
	}
	if err := domain.ValidateCurrency(currency); err != nil {
		return domain.Money{}, err
	}
	return domain.Money{Amount: *amount, Currency: currency}, nil
}

type ratesRequest struct {
	From     domain.Date `json:"from"`
	To       domain.Date `json:"to"`
	Rate     *int64      `json:"rate"`
	Currency string      `json:"currency"`
	// Free: the rate of 0 is meant (the nights are given away).
	Free bool `json:"free,omitempty"`
}

// setRates sets the nightly rate of a room type for the nights of [from, to) on sale. Bookings
// keep the price they were held at.
func (s *Server) setRates(c echo.Context) error {
	hotelID, roomTypeID := c.Param("hotelId"), c.Param("roomTypeId")
	var req ratesRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	span := domain.Stay{CheckIn: req.From, CheckOut: req.To}
	if err := validateRange(span); err != nil {
		return err
	}
	rate, err := validateRate(req.Rate, req.Currency, req.Free)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if ok, err := s.store.RoomTypeExists(ctx, hotelID, roomTypeID); err != nil || !ok {
		if err == nil {
			err = newError(http.StatusNotFound, "not_found", "hotel %s has no room type %s", hotelID, roomTypeID)
		}
		return err
	}
	n, err := s.store.SetRates(ctx, hotelID, roomTypeID, req.From, req.To, rate, req.Free)
	if err != nil {
		return err
	}
	if err := s.audit(c, "set-rates", "", "", map[string]any{"hotelId": hotelID, "roomTypeId": roomTypeID,
		"request": req, "nightsUpdated": n}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"hotelId": hotelID, "roomTypeId": roomTypeID, "from": req.From,
		"to": req.To, "rate": rate.Amount, "currency": rate.Currency, "free": req.Free, "nightsUpdated": n})
}

type blockedRoomsRequest struct {
	From    domain.Date `json:"from"`
	To      domain.Date `json:"to"`
	Blocked *int        `json:"blocked"`
}

// setBlockedRooms sets how many rooms of a room type are out of order on each night of
// [from, to): they are neither sold nor for sale. Admins, and supplier staff for their
// suppliers' hotels. Audited.
func (s *Server) setBlockedRooms(c echo.Context) error {
	hotelID, roomTypeID := c.Param("hotelId"), c.Param("roomTypeId")
	if err := s.mayManageRules(c, hotelID); err != nil {
		return err
	}
	var req blockedRoomsRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if err := validateRange(domain.Stay{CheckIn: req.From, CheckOut: req.To}); err != nil {
		return err
	}
	if req.Blocked == nil || *req.Blocked < 0 || *req.Blocked > maxTotalRooms {
		return fmt.Errorf("%w: blocked must be between 0 and %d", domain.ErrInvalid, maxTotalRooms)
	}
	p := db.BlockRooms{HotelID: hotelID, RoomTypeID: roomTypeID, From: req.From, To: req.To, Blocked: *req.Blocked}
	n, err := s.store.SetBlockedRooms(c.Request().Context(), p)
	if err != nil {
		return err
	}
	if err := s.audit(c, "set-blocked-rooms", "", "", map[string]any{"request": p, "nightsUpdated": n}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"hotelId": hotelID, "roomTypeId": roomTypeID, "from": req.From,
		"to": req.To, "blocked": p.Blocked, "nightsUpdated": n})
}

// setCancellationPolicy replaces a hotel's cancellation policy; bookings cancelled later are
// refunded by it.
func (s *Server) setCancellationPolicy(c echo.Context) error {
	var p domain.CancellationPolicy
	if err := decodeJSON(c, &p); err != nil {
		return err
	}
	if p.NonRefundable {
		return fmt.Errorf("%w: a hotel's policy is never non-refundable: sell a non-refundable rate plan", domain.ErrInvalid)
	}
	if err := p.Validate(); err != nil {
		return err
	}
	if err := s.store.SetCancellationPolicy(c.Request().Context(), c.Param("hotelId"), p); err != nil {
		return err
	}
	if err := s.audit(c, "set-cancellation-policy", "", "", map[string]any{"hotelId": c.Param("hotelId"),
		"policy": p}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}

// getCancellationPolicy answers a hotel's cancellation policy, as setCancellationPolicy stores it.
func (s *Server) getCancellationPolicy(c echo.Context) error {
	id := c.Param("hotelId")
	if err := domain.ValidateID("hotelId", id); err != nil {
		return err
	}
	h, err := s.store.GetHotel(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, h.Policy)
}
