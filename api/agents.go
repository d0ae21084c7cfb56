package api

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// agentParty is the channel and agent an agent's token sells as, checked against the agents
// stored: an agent its channel does not know, or a token naming another channel than the
// agent's own, is refused.
func (s *Server) agentParty(c echo.Context) (party, error) {
	channel, agentID := principal(c).SellsThrough()
	a, err := s.store.GetAgent(c.Request().Context(), agentID)
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return party{}, err // the database failed: not the token's fault
	}
	if err != nil || a.ChannelID != channel {
		return party{}, newError(http.StatusForbidden, "forbidden", "the token's agent %q is not an agent of channel %q", agentID, channel)
	}
	return party{channel, agentID}, nil
}

// partyKey is where storedAgent keeps the checked party of an agent's request.
const partyKey = "bookflow.agentParty"

// storedAgent guards every /agent route: the token's agent claim is checked against the stored
// agent (agentParty) before any handler runs, and the handlers act for the party it found.
func (s *Server) storedAgent(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		pty, err := s.agentParty(c)
		if err != nil {
			return err
		}
		c.Set(partyKey, pty)
		return next(c)
	}
}

// agentOf is the party storedAgent checked for this request.
func agentOf(c echo.Context) party {
	pty, _ := c.Get(partyKey).(party)
	return pty
}

// createAgentBooking holds rooms through the agent's channel: the hotel's sale rules are judged
// for the channel and agent, the channel sells from its allocation first, and a supplier's hotel
// confirms with the supplier (the agent is notified of the outcome). The booking's customer is
// the token's subject.
func (s *Server) createAgentBooking(c echo.Context) error {
	req, err := decodeHoldRequest(c)
	if err != nil {
		return err
	}
	if req.CustomerID, err = callerAsCustomer(c, req.CustomerID); err != nil {
		return err
	}
	if err := req.Validate(s.cfg.Limits); err != nil {
		return err
	}
	return s.holdThrough(c, req, agentOf(c), 0, staffView)
}

// agentBooking loads the booking in the path for the agent that sold it; any other booking
// answers 404, as one that does not exist.
func (s *Server) agentBooking(c echo.Context) (domain.Booking, error) {
	b, err := s.bookingInPath(c)
	if err == nil && (b.AgentID == "" || b.AgentID != agentOf(c).agent) {
		return domain.Booking{}, errNoBooking(c.Param("id"))
	}
	return b, err
}

// getAgentBooking answers one of the agent's bookings.
func (s *Server) getAgentBooking(c echo.Context) error {
	b, err := s.agentBooking(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, staffView(b, ""))
}

// cancelAgentBooking cancels one of the agent's bookings before its stay begins; its supplier is
// told and the agent notified.
func (s *Server) cancelAgentBooking(c echo.Context) error {
	b, err := s.agentBooking(c)
	if err != nil {
		return err
	}
	if b.StayBegun(s.cfg.Now()) && b.Status.HoldsInventory() {
		return newError(http.StatusConflict, "stay_started", "the stay has begun: an early departure is arranged at the front desk")
	}
	state, err := s.askBooking(c, b.ID, workflows.UpdateCancel, staffView, cancelled...)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, staffView(state.Booking, state.Reason))
}

// agentBookings lists what the agent sold, newest first, a page at a time: ?limit (1-100, 20),
// ?cursor (the previous page's next), ?status.
func (s *Server) agentBookings(c echo.Context) error {
	f, err := listFilter(c)
	if err != nil {
		return err
	}
	f.AgentID = agentOf(c).agent
	return s.listBookings(c, f, staffView, false)
}

// agentNotifications lists what the agent was told about its bookings, newest first.
func (s *Server) agentNotifications(c echo.Context) error {
	list, err := s.store.AgentNotifications(c.Request().Context(), agentOf(c).agent, 200)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"notifications": list})
}
