package api

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// venueBody is a venue as an admin sends it: terms left out take their defaults (0 is a term).
type venueBody struct {
	Name                 string `json:"name"`
	TimeZone             string `json:"timeZone"`
	PaymentWindowMinutes *int   `json:"paymentWindowMinutes"`
	FreeCancelHours      *int   `json:"freeCancelHours"`
	NoShowGraceMinutes   *int   `json:"noShowGraceMinutes"`
	// Country (ISO 3166-1 alpha-2) reads the desk's national phone numbers; left out: none.
	Country string `json:"country"`
}

// putVenue creates a venue (201) or updates its name and terms (200).
func (s *Server) putVenue(c echo.Context) error {
	var body venueBody
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	v := domain.NewVenue(c.Param("venueId"), body.Name, body.TimeZone)
	v.Country = body.Country
	for _, f := range []struct{ to, from *int }{{&v.PaymentWindowMinutes, body.PaymentWindowMinutes},
		{&v.FreeCancelHours, body.FreeCancelHours}, {&v.NoShowGraceMinutes, body.NoShowGraceMinutes}} {
		if f.from != nil {
			*f.to = *f.from
		}
	}
	if body.PaymentWindowMinutes != nil && *body.PaymentWindowMinutes == 0 {
		return fmt.Errorf("%w: paymentWindowMinutes must be between 1 and 1440", domain.ErrInvalid)
	}
	if err := v.Validate(); err != nil {
		return err
	}
	isNew, err := s.store.PutVenue(c.Request().Context(), v)
	if err != nil {
		return err
	}
	if err := s.audit(c, "put-venue", "", "", map[string]any{"venueId": v.ID, "venue": v}); err != nil {
		return err
	}
	return createdOrOK(c, isNew, v)
}

// getVenue answers a venue's name and terms, as putVenue stores them.
func (s *Server) getVenue(c echo.Context) error {
	id := c.Param("venueId")
	if err := domain.ValidateID("venueId", id); err != nil {
		return err
	}
	v, _, err := s.store.GetVenue(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}

// putVenueResource creates a venue's resource (201) or updates its name, sport and capacity
// (200).
func (s *Server) putVenueResource(c echo.Context) error {
	var r domain.VenueResource
	if err := decodeJSON(c, &r); err != nil {
		return err
	}
	r.VenueID, r.ID = c.Param("venueId"), c.Param("resourceId")
	if err := domain.ValidateID("venueId", r.VenueID); err != nil {
		return err
	}
	if err := r.Validate(); err != nil {
		return err
	}
	isNew, err := s.store.PutVenueResource(c.Request().Context(), r)
	if err != nil {
		return err
	}
	if err := s.audit(c, "put-venue-resource", "", "", map[string]any{"venueId": r.VenueID, "resource": r}); err != nil {
		return err
	}
	return createdOrOK(c, isNew, r)
}

// createdOrOK answers a PUT: 201 at the request's own URL when it created the resource, 200
// when it replaced one.
func createdOrOK(c echo.Context, isNew bool, body any) error {
	if isNew {
		return created(c, c.Request().URL.Path, body)
	}
	return c.JSON(http.StatusOK, body)
}

// applySchedule lays a resource's units out over a range of dates (see db.ApplySchedule).
func (s *Server) applySchedule(c echo.Context) error {
	var sched domain.Schedule
	if err := decodeJSON(c, &sched); err != nil {
		return err
	}
	venueID, resourceID := c.Param("venueId"), c.Param("resourceId")
	ctx := c.Request().Context()
	_, unit, err := s.store.VenueResourceKind(ctx, venueID, resourceID)
	if err != nil {
		return err
	}
	if err := sched.Validate(unit); err != nil {
		return err
	}
	res, err := s.store.ApplySchedule(ctx, venueID, resourceID, sched)
	if err != nil {
		return err
	}
	if err := s.audit(c, "apply-schedule", "", "", map[string]any{"venueId": venueID, "resourceId": resourceID,
		"schedule": sched, "result": res}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

// closureRequest names what to close or reopen: one unit (resourceId and start, an instant
// within the unit), a local day
// (date, of one resource or of the whole venue), or a resource from now on (resourceId alone).
type closureRequest struct {
	ResourceID string      `json:"resourceId,omitempty"`
	Start      *time.Time  `json:"start,omitempty"`
	Date       domain.Date `json:"date"`
	Reason     string      `json:"reason"`
	// KeepBookings closes units bookings hold, keeping them (never no-shows); without it such a
	// closure is refused, 409 slots_booked naming them.
	KeepBookings bool `json:"keepBookings,omitempty"`
}

// maxReason bounds a closure's, a cancel's and an out-of-order room's reason, in characters.
const maxReason = 500

func (s *Server) closure(c echo.Context, reopen bool) (db.Closure, error) {
	var req closureRequest
	if err := decodeJSON(c, &req); err != nil {
		return db.Closure{}, err
	}
	cl := db.Closure{VenueID: c.Param("venueId"), ResourceID: req.ResourceID, Reason: req.Reason,
		By: principal(c).Subject, KeepBookings: req.KeepBookings}
	if err := domain.ValidateID("venueId", cl.VenueID); err != nil {
		return cl, err
	}
	if cl.ResourceID != "" {
		if err := domain.ValidateID("resourceId", cl.ResourceID); err != nil {
			return cl, err
		}
	}
	if !reopen && (req.Reason == "" || domain.Longer(req.Reason, maxReason)) {
		return cl, fmt.Errorf("%w: reason is required (at most %d characters)", domain.ErrInvalid, maxReason)
	}
	_, loc, err := s.store.GetVenue(c.Request().Context(), cl.VenueID)
	if err != nil {
		return cl, err
	}
	switch {
	case req.Start != nil && !req.Date.IsZero():
		return cl, fmt.Errorf("%w: give start or date, not both", domain.ErrInvalid)
	case req.Start != nil:
		if cl.ResourceID == "" {
			return cl, fmt.Errorf("%w: start names a unit of one resource: resourceId is required", domain.ErrInvalid)
		}
		// The unit under way at start.
		cl.From, cl.To = req.Start.UTC(), req.Start.UTC().Add(time.Microsecond)
	case !req.Date.IsZero():
		day := domain.DayBounds(req.Date, loc)
		cl.From, cl.To = day.Start, day.End
	case cl.ResourceID != "":
		cl.From, cl.To = time.Now().UTC(), db.FarFuture
	default:
		return cl, fmt.Errorf("%w: give resourceId, start or date", domain.ErrInvalid)
	}
	return cl, nil
}

// closeUnits closes units of a venue: they stop selling at once; their bookings stay.
func (s *Server) closeUnits(c echo.Context) error {
	return s.setClosed(c, false)
}

// reopenUnits reopens closed units of a venue.
func (s *Server) reopenUnits(c echo.Context) error {
	return s.setClosed(c, true)
}

func (s *Server) setClosed(c echo.Context, reopen bool) error {
	cl, err := s.closure(c, reopen)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	change, action, field := s.store.CloseUnits, "close-units", "closed"
	if reopen {
		change, action, field = s.store.ReopenUnits, "reopen-units", "reopened"
	}
	n, err := change(ctx, cl)
	if err != nil {
		return err
	}
	if err := s.audit(c, action, "", cl.Reason, map[string]any{"venueId": cl.VenueID, "resourceId": cl.ResourceID,
		"from": cl.From, "to": cl.To, field: n, "keepBookings": cl.KeepBookings}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"venueId": cl.VenueID, field: n})
}

type slotsView struct {
	VenueID  string      `json:"venueId"`
	Date     domain.Date `json:"date"`
	TimeZone string      `json:"timeZone"`
	Slots    []db.Slot   `json:"slots"`
}

// venueSlots lists a venue's slots starting on a local date, of one sport or all (and its
// equipment's units, asked for).
func (s *Server) venueSlots(c echo.Context) error {
	venueID, sport := c.Param("venueId"), c.QueryParam("sport")
	if err := domain.ValidateID("venueId", venueID); err != nil {
		return err
	}
	if sport != "" {
		if err := domain.ValidateID("sport", sport); err != nil {
			return err
		}
	}
	date, err := domain.ParseDate(c.QueryParam("date"))
	if err != nil {
		return fmt.Errorf("date: %w", err)
	}
	ctx := c.Request().Context()
	v, loc, err := s.store.GetVenue(ctx, venueID)
	if err != nil {
		return err
	}
	// ?equipment=true adds the equipment's hours and days: the desk's grid shows them all.
	slots, err := s.store.VenueUnits(ctx, venueID, sport, domain.DayBounds(date, loc), loc, c.QueryParam("equipment") == "true")
	if err != nil {
		return err
	}
	if !principal(c).IsStaff() {
		for i := range slots {
			slots[i].ClosedReason = "" // staff's note, not the customer's business
		}
	}
	return c.JSON(http.StatusOK, slotsView{VenueID: venueID, Date: date, TimeZone: v.TimeZone, Slots: slots})
}

// maxRentalDays bounds an equipment availability query.
const maxRentalDays = 31

// venueEquipment lists a venue's equipment with what is left for [from, to).
func (s *Server) venueEquipment(c echo.Context) error {
	venueID := c.Param("venueId")
	if err := domain.ValidateID("venueId", venueID); err != nil {
		return err
	}
	var span domain.Span
	for _, q := range []struct {
		name string
		t    *time.Time
	}{{"from", &span.Start}, {"to", &span.End}} {
		t, err := time.Parse(time.RFC3339, c.QueryParam(q.name))
		if err != nil {
			return fmt.Errorf("%w: %s must be an RFC 3339 time with its offset, such as 2030-06-03T10:00:00+02:00",
				domain.ErrInvalid, q.name)
		}
		*q.t = t
	}
	switch {
	case !span.End.After(span.Start):
		return fmt.Errorf("%w: to must be after from", domain.ErrInvalid)
	case span.End.Sub(span.Start) > maxRentalDays*24*time.Hour:
		return fmt.Errorf("%w: a rental lasts at most %d days", domain.ErrInvalid, maxRentalDays)
	}
	ctx := c.Request().Context()
	if _, _, err := s.store.GetVenue(ctx, venueID); err != nil {
		return err
	}
	items, err := s.store.EquipmentAvailability(ctx, venueID, span)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"venueId": venueID, "from": span.Start, "to": span.End, "equipment": items})
}

// orderBody is a venue order as a checkout or the front desk sends it (the desk may name a
// walk-in guest by phone).
type orderBody struct {
	CustomerID string             `json:"customerId"`
	Lines      []domain.OrderLine `json:"lines"`
	walkIn
}

func decodeOrder(c echo.Context) (domain.OrderRequest, walkIn, error) {
	req := domain.OrderRequest{VenueID: c.Param("venueId")}
	if err := domain.ValidateIdempotencyKey(c.Request().Header.Get("Idempotency-Key")); err != nil {
		return req, walkIn{}, err
	}
	var body orderBody
	if err := decodeJSON(c, &body); err != nil {
		return req, walkIn{}, err
	}
	req.CustomerID, req.Lines = body.CustomerID, body.Lines
	return req, body.walkIn, nil
}

// createOrder books slots and equipment at a venue for the calling customer, all lines or none,
// through the booking workflow (as a hold at a hotel is).
func (s *Server) createOrder(c echo.Context) error {
	req, w, err := decodeOrder(c)
	if err != nil {
		return err
	}
	if w.Phone != "" {
		return newError(http.StatusBadRequest, "invalid_request", "phone names a walk-in guest: only the front desk books by phone")
	}
	if req.CustomerID, err = callerAsCustomer(c, req.CustomerID); err != nil {
		return err
	}
	if err := req.Validate(s.cfg.Limits); err != nil {
		return err
	}
	return s.order(c, req, s.cfg.HoldLimits.MaxActive, false, customerView)
}

// staffCreateOrder books at a venue the staff member works for, for the customer they name.
func (s *Server) staffCreateOrder(c echo.Context) error {
	req, w, err := decodeOrder(c)
	if err != nil {
		return err
	}
	if w.country, err = s.walkInCountry(c, w, "", req.VenueID); err != nil {
		return err
	}
	if req.CustomerID, err = staffCustomer(req.CustomerID, w); err != nil {
		return err
	}
	if err := req.Validate(s.cfg.Limits); err != nil {
		return err
	}
	if !principal(c).CanBookVenue(req.VenueID) {
		return newError(http.StatusForbidden, "forbidden", "your token does not name venue %s", req.VenueID)
	}
	return s.order(c, req, 0, true, staffView, func() error { return s.recordWalkIn(c, w) })
}

// order checks a validated order against the catalogue (404 for an unknown venue or resource,
// 400 for a line in the past, beyond the sale horizon or not whole units), then starts its
// booking workflow, held for the venue's payment window. The desk (underWay) may sell a slot
// under way for its rest, to a guest standing there, at its price: only a slot that has ended is
// in the past for it; a customer books slots not yet begun.
// checked, when given, runs once the order passed every check, before the booking starts.
func (s *Server) order(c echo.Context, req domain.OrderRequest, maxHolds int, underWay bool, view viewer,
	checked ...func() error) error {
	ctx := c.Request().Context()
	v, _, err := s.store.GetVenue(ctx, req.VenueID)
	if err != nil {
		return err
	}
	now := s.cfg.Now()
	horizon := now.AddDate(0, 0, s.cfg.Limits.SaleHorizonDays)
	for i, l := range req.Lines {
		kind, _, err := s.store.VenueResourceKind(ctx, req.VenueID, l.ResourceID)
		if err != nil {
			return err
		}
		switch {
		case kind == domain.KindExclusiveSlot && l.Quantity != 1:
			return fmt.Errorf("%w: lines[%d] takes an exclusive slot, whose quantity is 1", domain.ErrInvalid, i)
		case underWay && !l.End.After(now):
			return fmt.Errorf("%w: lines[%d] has ended", domain.ErrInvalid, i)
		case !underWay && !l.Start.After(now):
			return fmt.Errorf("%w: lines[%d] starts in the past", domain.ErrInvalid, i)
		case l.Start.After(horizon):
			return fmt.Errorf("%w: lines[%d] starts beyond the sale horizon (%d days)", domain.ErrInvalid, i,
				s.cfg.Limits.SaleHorizonDays)
		}
	}
	if err := s.checkWholeUnits(ctx, req); err != nil {
		return err
	}
	for _, f := range checked {
		if err := f(); err != nil {
			return err
		}
	}
	ttl := time.Duration(v.PaymentWindowMinutes) * time.Minute
	if s.cfg.VenueHoldTTL > 0 {
		ttl = s.cfg.VenueHoldTTL
	}
	noShowAt := req.Ends().Add(time.Duration(v.NoShowGraceMinutes) * time.Minute).UTC()
	return s.startBooking(c, workflows.BookingInput{Order: &req, MaxActiveHolds: maxHolds, HoldTTL: ttl, NoShowAt: noShowAt},
		req.CustomerID, req.Fingerprint(), view)
}

// checkWholeUnits answers 400 for an order (or an amendment's lines) with a line that cuts a unit
// of its resource: not whole units is a malformed order, not a sold-out one, and no workflow is
// asked.
func (s *Server) checkWholeUnits(ctx context.Context, req domain.OrderRequest) error {
	i, err := s.store.LineOffUnits(ctx, req)
	if err == nil && i >= 0 {
		err = fmt.Errorf("%w: lines[%d] cuts a unit of %s: start and end must be whole units (a slot as the "+
			"search lists it, whole hours or days of equipment)", domain.ErrInvalid, i, req.Lines[i].ResourceID)
	}
	return err
}
