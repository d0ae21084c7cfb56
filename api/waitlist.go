package api

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// Waitlists (docs/waitlists.md): customers, agents and the desk join a sold-out product's
// waitlist; the give-back that frees its units offers them as a hold (db/waitlist_offers.go).

// joinWaitlist adds the customer (the token's subject) to a product's waitlist: 201 with the
// entry and its place, or 200 with the entry they already have for it.
func (s *Server) joinWaitlist(c echo.Context) error {
	return s.join(c, "/api/v1/me/waitlist", func(req *domain.WaitlistRequest) (db.WaitlistJoin, error) {
		var err error
		req.CustomerID, err = callerAsCustomer(c, req.CustomerID)
		return db.WaitlistJoin{Request: *req, CreatedBy: principal(c).Subject}, err
	})
}

// agentJoinWaitlist adds the agent's customer to a product's waitlist on its channel: an offer
// is made as the agent's own sale would be (its sale rules, its allocation first).
func (s *Server) agentJoinWaitlist(c echo.Context) error {
	return s.join(c, "/api/v1/agent/waitlist", func(req *domain.WaitlistRequest) (db.WaitlistJoin, error) {
		if req.VenueID != "" {
			return db.WaitlistJoin{}, fmt.Errorf("%w: agents sell hotel stays: a venue's waitlist is joined by its customers or its desk", domain.ErrInvalid)
		}
		var err error
		req.CustomerID, err = callerAsCustomer(c, req.CustomerID)
		pty := agentOf(c)
		return db.WaitlistJoin{Request: *req, CreatedBy: principal(c).Subject, ChannelID: pty.channel, AgentID: pty.agent}, err
	})
}

// staffJoinWaitlist adds a guest the desk names (customerId, or phone and name for a walk-in)
// to the waitlist of a product of a site the staff member books for.
func (s *Server) staffJoinWaitlist(c echo.Context) error {
	var body struct {
		domain.WaitlistRequest
		walkIn
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	req := body.WaitlistRequest
	var err error
	if req.CustomerID, err = staffCustomer(req.CustomerID, body.walkIn); err != nil {
		return err
	}
	if err := req.Validate(s.cfg.Limits); err != nil {
		return err
	}
	if err := staffMayBook(c, req); err != nil {
		return err
	}
	if err := s.recordWalkIn(c, body.walkIn); err != nil {
		return err
	}
	return s.answerJoin(c, db.WaitlistJoin{Request: req, CreatedBy: principal(c).Subject}, "/api/v1/staff/waitlist")
}

// join decodes and checks a join's body, lets who asks shape it, and joins.
func (s *Server) join(c echo.Context, listedAt string, as func(*domain.WaitlistRequest) (db.WaitlistJoin, error)) error {
	var req domain.WaitlistRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	j, err := as(&req)
	if err != nil {
		return err
	}
	if err := j.Request.Validate(s.cfg.Limits); err != nil {
		return err
	}
	return s.answerJoin(c, j, listedAt)
}

// answerJoin joins, and answers 201 with the entry (Location: where the caller lists it) or 200
// with the open entry the customer already had.
func (s *Server) answerJoin(c echo.Context, j db.WaitlistJoin, listedAt string) error {
	e, joined, err := s.store.JoinWaitlist(c.Request().Context(), j)
	if errors.Is(err, db.ErrOnSale) {
		return newError(http.StatusConflict, "on_sale", "the product can be held now: hold it instead of joining its waitlist")
	}
	if err != nil {
		return err
	}
	if !joined {
		return c.JSON(http.StatusOK, e)
	}
	if listedAt != "/api/v1/me/waitlist" {
		listedAt += "?" + productQuery(e.WaitlistRequest)
	}
	c.Response().Header().Set(echo.HeaderLocation, listedAt)
	return c.JSON(http.StatusCreated, e)
}

// productQuery is the query that names a product in the waitlist lists (productInQuery).
func productQuery(r domain.WaitlistRequest) string {
	q := url.Values{}
	if r.HotelID != "" {
		q.Set("hotelId", r.HotelID)
		q.Set("roomTypeId", r.RoomTypeID)
		q.Set("checkIn", r.CheckIn.String())
		q.Set("checkOut", r.CheckOut.String())
	} else {
		q.Set("venueId", r.VenueID)
		q.Set("resourceId", r.ResourceID)
		q.Set("start", r.Start.UTC().Format(time.RFC3339))
		q.Set("end", r.End.UTC().Format(time.RFC3339))
	}
	return q.Encode()
}

// myWaitlist answers the customer's entries: open ones with their place or live offer, then the
// last closed ones.
func (s *Server) myWaitlist(c echo.Context) error {
	entries, err := s.store.CustomerWaitlist(c.Request().Context(), principal(c).Subject)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"entries": entries})
}

// leaveWaitlist closes the customer's waiting entry; one with a live offer is left by declining.
func (s *Server) leaveWaitlist(c echo.Context) error {
	id, err := entryInPath(c)
	if err != nil {
		return err
	}
	e, err := s.store.LeaveWaitlist(c.Request().Context(), principal(c).Subject, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, e)
}

// declineOffer declines the live offer of the customer's entry: its hold is cancelled through
// its booking workflow, and the units go to the next entry in the same transaction.
func (s *Server) declineOffer(c echo.Context) error {
	id, err := entryInPath(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	e, err := s.store.WaitlistEntry(ctx, id)
	if err != nil || e.CustomerID != principal(c).Subject {
		return cmp.Or(err, fmt.Errorf("%w: waitlist entry %d", domain.ErrNotFound, id))
	}
	if e.Status != domain.WaitlistOffered {
		return newError(http.StatusConflict, "no_offer", "waitlist entry %d has no live offer (it is %s)", id, e.Status)
	}
	if _, err := s.askBooking(c, e.OfferBookingID, workflows.UpdateCancel, customerView, cancelled...); err != nil {
		return err
	}
	if e, err = s.store.WaitlistEntry(ctx, id); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, e)
}

// agentWaitlist answers the agent's own open entries for a product named in the query.
func (s *Server) agentWaitlist(c echo.Context) error {
	req, err := productInQuery(c)
	if err != nil {
		return err
	}
	entries, err := s.store.ProductWaitlist(c.Request().Context(), req, agentOf(c).agent)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"entries": entries})
}

// staffWaitlist answers a product's open entries, in the order they are offered, for staff who
// may read the site's bookings.
func (s *Server) staffWaitlist(c echo.Context) error {
	req, err := productInQuery(c)
	if err != nil {
		return err
	}
	p := principal(c)
	if req.HotelID != "" && !p.CanRead(req.HotelID) {
		return errOtherHotel(req.HotelID)
	}
	if req.VenueID != "" && !p.CanReadAt(domain.Booking{VenueID: req.VenueID}) {
		return newError(http.StatusForbidden, "forbidden", "your token does not name venue %s", req.VenueID)
	}
	entries, err := s.store.ProductWaitlist(c.Request().Context(), req, "")
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"entries": entries})
}

// offerWaitlist offers what is free of a product (in the body, as for joining, without a
// customer) to its waitlist now, by the rules a give-back follows, for the desk of its site.
func (s *Server) offerWaitlist(c echo.Context) error {
	var req domain.WaitlistRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.CustomerID != "" {
		return fmt.Errorf("%w: an offer goes to the entries in line: name the product, not a customer", domain.ErrInvalid)
	}
	if err := req.ValidateProduct(s.cfg.Limits); err != nil {
		return err
	}
	if err := staffMayBook(c, req); err != nil {
		return err
	}
	offered, err := s.store.OfferWaitlist(c.Request().Context(), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"entries": offered})
}

// putWaitlistSettings sets a hotel's (venue false) or a venue's offer time and fit rule.
func (s *Server) putWaitlistSettings(venue bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		var set domain.WaitlistSettings
		if err := decodeJSON(c, &set); err != nil {
			return err
		}
		if err := s.store.SetWaitlistSettings(c.Request().Context(), siteInPath(c, venue), venue, set); err != nil {
			return err
		}
		return c.JSON(http.StatusOK, set)
	}
}

// getWaitlistSettings answers a hotel's (venue false) or a venue's waitlist settings.
func (s *Server) getWaitlistSettings(venue bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		set, err := s.store.WaitlistSettings(c.Request().Context(), siteInPath(c, venue), venue)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, set)
	}
}

func siteInPath(c echo.Context, venue bool) string {
	if venue {
		return c.Param("venueId")
	}
	return c.Param("hotelId")
}

// staffMayBook refuses a product of a site the staff member does not book for.
func staffMayBook(c echo.Context, req domain.WaitlistRequest) error {
	p := principal(c)
	if req.HotelID != "" && !p.CanBook(req.HotelID) {
		return errOtherHotel(req.HotelID)
	}
	if req.VenueID != "" && !p.CanBookVenue(req.VenueID) {
		return newError(http.StatusForbidden, "forbidden", "your token does not name venue %s", req.VenueID)
	}
	return nil
}

func entryInPath(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("entryId"), 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("%w: entryId must be a waitlist entry's number", domain.ErrInvalid)
	}
	return id, nil
}

// productInQuery reads a product from the query: hotelId, roomTypeId, checkIn and checkOut, or
// venueId, resourceId, start and end (RFC 3339). Entries over any of its units are listed.
func productInQuery(c echo.Context) (domain.WaitlistRequest, error) {
	req := domain.WaitlistRequest{HotelID: c.QueryParam("hotelId"), RoomTypeID: c.QueryParam("roomTypeId"),
		VenueID: c.QueryParam("venueId"), ResourceID: c.QueryParam("resourceId"), Quantity: 1}
	var err error
	if req.HotelID != "" {
		if req.CheckIn, err = domain.ParseDate(c.QueryParam("checkIn")); err == nil {
			req.CheckOut, err = domain.ParseDate(c.QueryParam("checkOut"))
		}
	} else {
		if req.Start, err = time.Parse(time.RFC3339, c.QueryParam("start")); err == nil {
			req.End, err = time.Parse(time.RFC3339, c.QueryParam("end"))
		}
		if err != nil {
			err = fmt.Errorf("%w: start and end must be RFC 3339 times with an offset", domain.ErrInvalid)
		}
	}
	if err != nil {
		return req, err
	}
	return req, req.ValidateProduct(domain.Limits{MaxNights: 366, MaxQuantity: 1, SaleHorizonDays: 3650})
}
