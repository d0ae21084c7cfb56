package api

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/suppliers"
)

// party is who a sale is made through: a channel and perhaps one of its agents, or nobody (a
// direct sale).
type party struct {
	channel, agent string
}

// sale is the party's sale of the default plan (explainAvailability names another).
func (p party) sale(hotelID, roomTypeID string, stay domain.Stay, today domain.Date) domain.SaleContext {
	return domain.SaleContext{HotelID: hotelID, RoomTypeID: roomTypeID, ChannelID: p.channel, AgentID: p.agent,
		Stay: stay, Today: today}
}

// saleParty is the channel and agent a search at hotelID is made for: an agent's own (from its
// token); the ?channelId= or ?agentId= staff ask about (supplier staff at their suppliers'
// hotels); nobody for a customer.
func (s *Server) saleParty(c echo.Context, hotelID string) (party, error) {
	p := principal(c)
	qChannel, qAgent := c.QueryParam("channelId"), c.QueryParam("agentId")
	if channel, agent := p.SellsThrough(); agent != "" {
		if (qChannel != "" && qChannel != channel) || (qAgent != "" && qAgent != agent) {
			return party{}, newError(http.StatusForbidden, "forbidden", "an agent sees its own channel's availability only")
		}
		return s.agentParty(c)
	}
	if qChannel == "" && qAgent == "" {
		return party{}, nil
	}
	if ok, err := s.seesRules(c, hotelID); err != nil || !ok {
		if err == nil {
			err = newError(http.StatusForbidden, "forbidden", "only staff look through another channel or agent")
		}
		return party{}, err
	}
	if qAgent != "" {
		if err := domain.ValidateID("agentId", qAgent); err != nil {
			return party{}, err
		}
		a, err := s.store.GetAgent(c.Request().Context(), qAgent)
		if err != nil {
			return party{}, err
		}
		if qChannel != "" && qChannel != a.ChannelID {
			return party{}, fmt.Errorf("%w: agent %s sells through channel %s, not %s", domain.ErrInvalid, a.ID, a.ChannelID, qChannel)
		}
		return party{a.ChannelID, a.ID}, nil
	}
	return party{qChannel, ""}, domain.ValidateID("channelId", qChannel)
}

// seesRules reports whether the caller may see a hotel's rules as they are set (who set them,
// their notes) and its sales through any channel: staff, and supplier staff of its supplier.
func (s *Server) seesRules(c echo.Context, hotelID string) (bool, error) {
	p := principal(c)
	if p.IsStaff() {
		return true, nil
	}
	if !p.Has(domain.RoleSupplier) {
		return false, nil
	}
	sup, err := s.store.HotelSupplier(c.Request().Context(), hotelID)
	return p.CanManageRules(sup.ID), err
}

// askSupplier asks a direct_connect supplier, which keeps no stock here, for qty rooms of a room
// type over the stay. A supplier that does not answer makes the room type unavailable, not the
// search fail.
func (s *Server) askSupplier(ctx context.Context, sup db.Supplier, hotelID string, stay domain.Stay, qty int, room *db.RoomTypeAvailability) error {
	q, err := s.cfg.Suppliers.Quote(ctx, sup.Endpoint, suppliers.QuoteRequest{HotelID: hotelID, RoomTypeID: room.RoomTypeID,
		CheckIn: stay.CheckIn, CheckOut: stay.CheckOut, Quantity: qty})
	room.Available = 0
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		s.cfg.Logger.WarnContext(ctx, "supplier quote failed", "supplier", sup.ID, "hotelId", hotelID, "err", err)
		room.UnavailableBecause = "the supplier did not answer"
	case !q.Available:
		room.UnavailableBecause = "the supplier has no room"
	default:
		price := q.Price()
		room.Available, room.SupplierPrice = qty, &price
	}
	for i := range room.Nights {
		room.Nights[i].Available = room.Available
	}
	return nil
}

// explainView says why a stay of a room type can or cannot be sold to the caller's channel and
// agent: every rule that applies, the first that refuses it, and the stock behind the answer.
type explainView struct {
	HotelID    string      `json:"hotelId"`
	RoomTypeID string      `json:"roomTypeId"`
	CheckIn    domain.Date `json:"checkIn"`
	CheckOut   domain.Date `json:"checkOut"`
	Quantity   int         `json:"quantity"`
	RatePlan   string      `json:"ratePlan"`
	ChannelID  string      `json:"channelId,omitempty"`
	AgentID    string      `json:"agentId,omitempty"`
	Available  bool        `json:"available"`
	// Because says what decided: the refusing rule, the stock, or the supplier.
	Because   string                   `json:"because"`
	Rules     []domain.RuleFinding     `json:"rules"`
	RefusedBy *domain.RuleFinding      `json:"refusedBy,omitempty"`
	Stock     *db.RoomTypeAvailability `json:"stock,omitempty"`
	Supplier  string                   `json:"supplier,omitempty"` // the supplier and its mode
}

// explainAvailability answers, for a stay, room type, quantity (?quantity=, 1 by default) and rate
// plan (?ratePlan=, the default plan by default), every sale rule that applies to the caller's
// channel and agent and which one makes the stay unavailable; when no rule does, the stock (or the
// supplier) decides.
func (s *Server) explainAvailability(c echo.Context) error {
	hotelID, roomTypeID := c.Param("hotelId"), c.QueryParam("roomTypeId")
	for _, f := range []struct{ name, v string }{{"hotelId", hotelID}, {"roomTypeId", roomTypeID}} {
		if err := domain.ValidateID(f.name, f.v); err != nil {
			return err
		}
	}
	stay, err := queryStay(c, s.cfg.Limits.MaxNights)
	if err != nil {
		return err
	}
	qty := 1
	if q := c.QueryParam("quantity"); q != "" {
		if qty, err = strconv.Atoi(q); err != nil || qty < 1 || qty > s.cfg.Limits.MaxQuantity {
			return fmt.Errorf("%w: quantity must be between 1 and %d", domain.ErrInvalid, s.cfg.Limits.MaxQuantity)
		}
	}
	plan := cmp.Or(c.QueryParam("ratePlan"), domain.DefaultRatePlan)
	if err := domain.ValidateID("ratePlan", plan); err != nil {
		return err
	}
	pty, err := s.saleParty(c, hotelID)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	hotel, err := s.checkRoomType(ctx, hotelID, roomTypeID, stay)
	if err != nil {
		return err
	}
	if plan != domain.DefaultRatePlan { // every hotel has its default plan
		if _, err := s.store.GetRatePlan(ctx, hotelID, plan); err != nil {
			return err
		}
	}
	rules, err := s.store.SaleRulesInForce(ctx, hotelID)
	if err != nil {
		return err
	}
	sale := pty.sale(hotelID, roomTypeID, stay, domain.DateOf(s.cfg.Now(), hotel.Location))
	sale.RatePlan = plan
	v := domain.EvaluateSale(rules, sale)
	out := explainView{HotelID: hotelID, RoomTypeID: roomTypeID, CheckIn: stay.CheckIn, CheckOut: stay.CheckOut,
		Quantity: qty, RatePlan: plan, ChannelID: pty.channel, AgentID: pty.agent, Rules: v.Findings, RefusedBy: v.Refusal}
	if out.Rules == nil {
		out.Rules = []domain.RuleFinding{}
	}
	if sees, err := s.seesRules(c, hotelID); err != nil {
		return err
	} else if !sees {
		for i := range out.Rules { // who set a rule, and why, is for the hotel's staff
			out.Rules[i].Rule.SetBy, out.Rules[i].Rule.Note = "", ""
		}
	}
	if !v.Allowed {
		out.Because = "refused by a sale rule: " + v.Refusal.Why
		return c.JSON(http.StatusOK, out)
	}
	rooms, err := s.store.Availability(ctx, hotelID, pty.channel, stay)
	if err != nil {
		return err
	}
	for i := range rooms {
		if rooms[i].RoomTypeID == roomTypeID {
			out.Stock = &rooms[i]
		}
	}
	sup, err := s.store.HotelSupplier(ctx, hotelID)
	if err != nil {
		return err
	}
	if sup.ID != "" {
		out.Supplier = sup.ID + " (" + sup.Mode + ")"
	}
	switch {
	case out.Stock == nil:
		out.Because = "the room type is not on sale"
	case sup.Mode == db.ModeDirectConnect:
		if err := s.askSupplier(ctx, sup, hotelID, stay, qty, out.Stock); err != nil {
			return err
		}
		out.Available = out.Stock.Available > 0
		out.Because = "the supplier's answer: " + map[bool]string{true: "it has the room", false: out.Stock.UnavailableBecause}[out.Available]
	case out.Stock.Available >= qty:
		out.Available, out.Because = true, fmt.Sprintf("every sale rule allows it and %d rooms are left for this sale", out.Stock.Available)
	default:
		out.Because = fmt.Sprintf("every sale rule allows it, but only %d rooms are left for this sale on its scarcest night", out.Stock.Available)
	}
	return c.JSON(http.StatusOK, out)
}
