package api

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/domain"
)

// ratePlanRequest is a plan as an admin writes it: the hotel and code come from the path, who
// wrote it from the token.
type ratePlanRequest struct {
	Name        string                 `json:"name"`
	RoomTypes   []string               `json:"roomTypes"`
	Board       domain.Board           `json:"board"`
	Includes    string                 `json:"includes"`
	Policy      *domain.RatePlanPolicy `json:"policy"`
	Payment     *domain.PaymentRule    `json:"payment"`
	Channels    []string               `json:"channels"`
	DerivedFrom *domain.Derivation     `json:"derivedFrom"`
}

// putRatePlan creates or replaces one of a hotel's rate plans (docs/rates-and-restrictions.md).
// Left out: board room_only, payment in full, direct sales only; the default plan BAR sells to
// every channel, and only its name, board and inclusions are its own.
func (s *Server) putRatePlan(c echo.Context) error {
	var req ratePlanRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	p := domain.RatePlan{HotelID: c.Param("hotelId"), Code: c.Param("code"), Name: req.Name, RoomTypes: req.RoomTypes,
		Board: req.Board, Includes: req.Includes, Policy: req.Policy, Channels: req.Channels, DerivedFrom: req.DerivedFrom,
		Default: c.Param("code") == domain.DefaultRatePlan, UpdatedBy: principal(c).Subject}
	if p.Board == "" {
		p.Board = domain.BoardRoomOnly
	}
	p.Payment = domain.PaymentRule{Kind: domain.PayInFull}
	if req.Payment != nil {
		p.Payment = *req.Payment
	}
	if p.Default && p.Channels == nil {
		p.Channels = []string{domain.AnyChannel}
	}
	if err := p.Validate(); err != nil {
		return err
	}
	stored, err := s.store.PutRatePlan(c.Request().Context(), p)
	if err != nil {
		return err
	}
	s.meta.forget() // this process's next search offers the plan as written
	if err := s.audit(c, "put-rate-plan", "", "", map[string]any{"hotelId": p.HotelID, "code": p.Code,
		"plan": stored}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, stored)
}

// ratePlans lists a hotel's rate plans by code, its default plan among them.
func (s *Server) ratePlans(c echo.Context) error {
	id := c.Param("hotelId")
	if err := domain.ValidateID("hotelId", id); err != nil {
		return err
	}
	plans, err := s.store.RatePlans(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"hotelId": id, "ratePlans": plans})
}

// ratePlan answers one of a hotel's rate plans.
func (s *Server) ratePlan(c echo.Context) error {
	id, code := c.Param("hotelId"), c.Param("code")
	if err := domain.ValidateID("hotelId", id); err != nil {
		return err
	}
	if err := domain.ValidateID("code", code); err != nil {
		return err
	}
	p, err := s.store.GetRatePlan(c.Request().Context(), id, code)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}

// maxPriceRangeNights bounds one read of a plan's nightly prices: a year and a day.
const maxPriceRangeNights = 367

// setPlanRates sets a root plan's nightly rate for a room type over the nights of [from, to) on
// sale, as setRates does for the room type's own (the default plan's) rates. Audited.
func (s *Server) setPlanRates(c echo.Context) error {
	hotelID, code, roomTypeID := c.Param("hotelId"), c.Param("code"), c.Param("roomTypeId")
	var req ratesRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	for _, id := range []struct{ field, v string }{{"hotelId", hotelID}, {"code", code}, {"roomTypeId", roomTypeID}} {
		if err := domain.ValidateID(id.field, id.v); err != nil {
			return err
		}
	}
	if err := validateRange(domain.Stay{CheckIn: req.From, CheckOut: req.To}); err != nil {
		return err
	}
	rate, err := validateRate(req.Rate, req.Currency, req.Free)
	if err != nil {
		return err
	}
	n, err := s.store.SetPlanRates(c.Request().Context(), hotelID, code, roomTypeID, req.From, req.To, rate)
	if err != nil {
		return err
	}
	if err := s.audit(c, "set-plan-rates", "", "", map[string]any{"hotelId": hotelID, "ratePlan": code,
		"roomTypeId": roomTypeID, "request": req, "nightsUpdated": n}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"hotelId": hotelID, "ratePlan": code, "roomTypeId": roomTypeID,
		"from": req.From, "to": req.To, "rate": rate.Amount, "currency": rate.Currency, "nightsUpdated": n})
}

// planPrices answers a room type's nights [from, to) on sale as a plan sells them: each night's
// price through the plan's chain of derivations, or why it has none.
func (s *Server) planPrices(c echo.Context) error {
	hotelID, code, roomTypeID := c.Param("hotelId"), c.Param("code"), c.Param("roomTypeId")
	for _, id := range []struct{ field, v string }{{"hotelId", hotelID}, {"code", code}, {"roomTypeId", roomTypeID}} {
		if err := domain.ValidateID(id.field, id.v); err != nil {
			return err
		}
	}
	from, err := domain.ParseDate(c.QueryParam("from"))
	if err != nil {
		return fmt.Errorf("from: %w", err)
	}
	to, err := domain.ParseDate(c.QueryParam("to"))
	if err != nil {
		return fmt.Errorf("to: %w", err)
	}
	span := domain.Stay{CheckIn: from, CheckOut: to}
	if !to.After(from) || span.Nights() > maxPriceRangeNights {
		return fmt.Errorf("%w: to must be after from, at most %d nights on", domain.ErrInvalid, maxPriceRangeNights)
	}
	nights, err := s.store.PlanNightlyPrices(c.Request().Context(), hotelID, code, roomTypeID, from, to)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"hotelId": hotelID, "ratePlan": code, "roomTypeId": roomTypeID,
		"from": from, "to": to, "nights": nights})
}
