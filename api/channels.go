package api

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// supplierBody is a supplier as an admin sends it.
type supplierBody struct {
	Name        string  `json:"name"`
	Mode        string  `json:"mode"`
	Endpoint    string  `json:"endpoint"`
	PushSecret  *string `json:"pushSecret"`  // left out: the stored one stays
	HoldMinutes *int    `json:"holdMinutes"` // left out: the stored one stays (30 for a new supplier)
}

// putSupplier creates or changes a supplier, and keeps its stock sync schedule in step.
func (s *Server) putSupplier(c echo.Context) error {
	var body supplierBody
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	sup := db.Supplier{ID: c.Param("supplierId"), Name: body.Name, Mode: body.Mode, Endpoint: body.Endpoint, HoldMinutes: 30}
	ctx := c.Request().Context()
	stored, err := s.store.GetSupplier(ctx, sup.ID)
	switch {
	case err == nil: // what is left out stays as stored
		sup.PushSecret, sup.HoldMinutes = stored.PushSecret, stored.HoldMinutes
	case !errors.Is(err, domain.ErrNotFound):
		return err
	}
	if body.PushSecret != nil {
		sup.PushSecret = *body.PushSecret
	}
	if body.HoldMinutes != nil {
		sup.HoldMinutes = *body.HoldMinutes
	}
	if err := validateSupplier(sup); err != nil {
		return err
	}
	if err := s.store.PutSupplier(ctx, sup); err != nil {
		return err
	}
	s.meta.forget()
	if s.cfg.SupplierSync != nil {
		if err := s.cfg.SupplierSync(ctx, sup); err != nil {
			return err
		}
	}
	if err := s.audit(c, "put-supplier", "", "", map[string]any{"supplier": sup}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, sup)
}

func validateSupplier(sup db.Supplier) error {
	if err := domain.ValidateID("supplierId", sup.ID); err != nil {
		return err
	}
	switch {
	case domain.Longer(sup.Name, 200):
		return fmt.Errorf("%w: name is at most 200 characters", domain.ErrInvalid)
	case sup.Mode != db.ModeDirectConnect && sup.Mode != db.ModeDirectProcure:
		return fmt.Errorf("%w: mode must be %s or %s", domain.ErrInvalid, db.ModeDirectConnect, db.ModeDirectProcure)
	case sup.HoldMinutes < 1 || sup.HoldMinutes > 24*60:
		return fmt.Errorf("%w: holdMinutes must be between 1 and 1440", domain.ErrInvalid)
	case sup.Mode == db.ModeDirectConnect && sup.Endpoint == "":
		return fmt.Errorf("%w: a direct_connect supplier needs its endpoint: every search and booking asks it", domain.ErrInvalid)
	case sup.PushSecret != "" && len(sup.PushSecret) < 16:
		return fmt.Errorf("%w: pushSecret must be at least 16 characters", domain.ErrInvalid)
	}
	return validateHTTPURL("endpoint", sup.Endpoint)
}

// validateHTTPURL checks an optional http(s) URL an admin gives bookflow to call.
func validateHTTPURL(field, v string) error {
	if v == "" {
		return nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%w: %s must be an http(s) URL", domain.ErrInvalid, field)
	}
	return nil
}

// listSuppliers lists every supplier (their push secrets never leave the server).
func (s *Server) listSuppliers(c echo.Context) error {
	sups, err := s.store.Suppliers(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"suppliers": sups})
}

// setHotelSupplier makes a hotel's stock come from a supplier (supplierId "" makes it the
// hotel's own again), adding the hotel, in timeZone, when it is not in the catalogue yet.
func (s *Server) setHotelSupplier(c echo.Context) error {
	var body struct {
		SupplierID string `json:"supplierId"`
		TimeZone   string `json:"timeZone"`
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	hotelID := c.Param("hotelId")
	if err := domain.ValidateID("hotelId", hotelID); err != nil {
		return err
	}
	if body.SupplierID != "" {
		if err := domain.ValidateID("supplierId", body.SupplierID); err != nil {
			return err
		}
	}
	if body.TimeZone != "" {
		if _, err := time.LoadLocation(body.TimeZone); err != nil || body.TimeZone == "Local" {
			return fmt.Errorf("%w: timeZone %q is not an IANA time zone name", domain.ErrInvalid, body.TimeZone)
		}
	}
	if err := s.store.SetHotelSupplier(c.Request().Context(), hotelID, body.SupplierID, body.TimeZone); err != nil {
		return err
	}
	s.meta.forget()
	if err := s.audit(c, "set-hotel-supplier", "", "", map[string]any{"hotelId": hotelID, "supplierId": body.SupplierID}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{"hotelId": hotelID, "supplierId": body.SupplierID})
}

// putChannel creates or renames a sales channel.
func (s *Server) putChannel(c echo.Context) error {
	var body struct {
		Name string `json:"name"`
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	ch := db.Channel{ID: c.Param("channelId"), Name: body.Name}
	if err := domain.ValidateID("channelId", ch.ID); err != nil {
		return err
	}
	if domain.Longer(ch.Name, 200) {
		return fmt.Errorf("%w: name is at most 200 characters", domain.ErrInvalid)
	}
	if err := s.store.PutChannel(c.Request().Context(), ch); err != nil {
		return err
	}
	if err := s.audit(c, "put-channel", "", "", map[string]any{"channel": ch}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ch)
}

// listChannels lists every sales channel.
func (s *Server) listChannels(c echo.Context) error {
	chs, err := s.store.Channels(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"channels": chs})
}

// putAgent creates or changes an agent of a channel; its webhook, when set, receives its
// notifications signed with webhookSecret.
func (s *Server) putAgent(c echo.Context) error {
	var body struct {
		ChannelID     string `json:"channelId"`
		Name          string `json:"name"`
		WebhookURL    string `json:"webhookUrl"`
		WebhookSecret string `json:"webhookSecret"`
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	a := db.Agent{ID: c.Param("agentId"), ChannelID: body.ChannelID, Name: body.Name, WebhookURL: body.WebhookURL,
		WebhookSecret: body.WebhookSecret}
	for _, f := range []struct{ name, v string }{{"agentId", a.ID}, {"channelId", a.ChannelID}} {
		if err := domain.ValidateID(f.name, f.v); err != nil {
			return err
		}
	}
	switch {
	case domain.Longer(a.Name, 200):
		return fmt.Errorf("%w: name is at most 200 characters", domain.ErrInvalid)
	case (a.WebhookURL == "") != (a.WebhookSecret == ""):
		return fmt.Errorf("%w: webhookUrl and webhookSecret go together", domain.ErrInvalid)
	case a.WebhookSecret != "" && len(a.WebhookSecret) < 16:
		return fmt.Errorf("%w: webhookSecret must be at least 16 characters", domain.ErrInvalid)
	}
	if err := validateHTTPURL("webhookUrl", a.WebhookURL); err != nil {
		return err
	}
	if err := s.store.PutAgent(c.Request().Context(), a); err != nil {
		return err
	}
	if err := s.audit(c, "put-agent", "", "", map[string]any{"agentId": a.ID, "channelId": a.ChannelID,
		"webhookUrl": a.WebhookURL}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, a)
}

// listAgents lists every agent (their webhook secrets never leave the server).
func (s *Server) listAgents(c echo.Context) error {
	agents, err := s.store.Agents(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"agents": agents})
}

// validateAllocationOf checks whose allocation a request names: a channel, and maybe one of its
// agents.
func validateAllocationOf(channelID, agentID string) error {
	if err := domain.ValidateID("channelId", channelID); err != nil {
		return err
	}
	if agentID != "" {
		return domain.ValidateID("agentId", agentID)
	}
	return nil
}

// deleteAllocation removes a channel's (or, with agentId=, one agent's) allocation of a room
// type on the nights [from, to): its unsold rooms go back to the pool. While rooms sold from it
// are held or sold on any of those nights it is 409 and nothing changes (db.Store.DeleteAllocation).
func (s *Server) deleteAllocation(c echo.Context) error {
	hotelID, roomTypeID := c.Param("hotelId"), c.Param("roomTypeId")
	if err := s.mayManageRules(c, hotelID); err != nil {
		return err
	}
	channelID, agentID := c.QueryParam("channelId"), c.QueryParam("agentId")
	if err := validateAllocationOf(channelID, agentID); err != nil {
		return err
	}
	span, err := queryRange(c)
	if err != nil {
		return err
	}
	a := db.AllocationSet{HotelID: hotelID, RoomTypeID: roomTypeID, ChannelID: channelID, AgentID: agentID,
		From: span.CheckIn, To: span.CheckOut}
	nights, err := s.store.DeleteAllocation(c.Request().Context(), a)
	if err != nil {
		return err
	}
	if err := s.audit(c, "delete-allocation", "", "", map[string]any{"allocation": a, "nights": nights}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"hotelId": hotelID, "roomTypeId": roomTypeID, "channelId": channelID,
		"agentId": agentID, "from": span.CheckIn, "to": span.CheckOut, "nights": nights})
}
