package api

import (
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
