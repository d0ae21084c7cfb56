package api

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/telemetry"
	"github.com/bookflow/bookflow/workflows"
)

// bookingView is a booking as the API shows it.
type bookingView struct {
	domain.Booking
	Nights int    `json:"nights"`
	Reason string `json:"reason,omitempty"`
	// GuestName is the name staff lists show the booking by (guests.go); never a customer's.
	GuestName string `json:"guestName,omitempty"`
	// LateArrival is a venue booking's late arrival, as the desk recorded it (late_arrivals.go).
	LateArrival *db.LateArrival `json:"lateArrival,omitempty"`
}

// viewer turns a booking, and the workflow's reason for its state, into what the caller may see.
type viewer func(b domain.Booking, reason string) bookingView

// customerView shows customers their booking with a fixed public reason, never an internal
// error or an operator's note, and not which staff member made it.
func customerView(b domain.Booking, _ string) bookingView {
	b.CreatedBy, b.CheckedOutBy = "", ""
	reason := b.PublicReason()
	if b.RefusedBySupplier() {
		b.Refusal = "" // the supplier's own words are for staff and the agent
	} else if b.Status == domain.StatusRejected && b.Refusal != "" {
		// The sale rule (or night without a rate, or the supplier's refusal) that refused it, as
		// the booking's refusal and the explain endpoint show anyone: a direct sale's 409 names
		// it as an agent's does.
		reason = "not on sale: " + b.Refusal
	}
	return view(b, reason)
}

// staffView shows staff the whole booking and the workflow's own reason.
func staffView(b domain.Booking, reason string) bookingView {
	return view(b, reason)
}

// view shows a stay with its nights, and a venue order by its lines (price.lines) alone.
func view(b domain.Booking, reason string) bookingView {
	if b.VenueID != "" {
		b.RoomTypeID, b.Stay, b.RatePlan = "", domain.Stay{}, ""
		return bookingView{Booking: b, Reason: reason}
	}
	return bookingView{Booking: b, Nights: b.Nights(), Reason: reason}
}

// createBooking holds rooms for the calling customer, who is the token's subject: a body naming
// anyone else is refused.
func (s *Server) createBooking(c echo.Context) error {
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
	return s.hold(c, req, s.cfg.HoldLimits.MaxActive, customerView)
}

// callerAsCustomer is the customer a customer's request is for: the token's subject, which a
// customerId in the body may only repeat.
func callerAsCustomer(c echo.Context, given string) (string, error) {
	sub := principal(c).Subject
	if given != "" && given != sub {
		return "", newError(http.StatusForbidden, "forbidden", "customerId must be your own (the token's subject) or left out")
	}
	return sub, nil
}

// staffCreateBooking holds rooms for a walk-in or phone guest whom the staff member names, at a
// hotel they work for. Staff bookings do not count against the guest's hold limit.
func (s *Server) staffCreateBooking(c echo.Context) error {
	var body struct {
		domain.HoldRequest
		walkIn
	}
	if err := domain.ValidateIdempotencyKey(c.Request().Header.Get("Idempotency-Key")); err != nil {
		return err
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	req := body.HoldRequest
	var err error
	if body.country, err = s.walkInCountry(c, body.walkIn, req.HotelID, ""); err != nil {
		return err
	}
	if req.CustomerID, err = staffCustomer(req.CustomerID, body.walkIn); err != nil {
		return err
	}
	if err := req.Validate(s.cfg.Limits); err != nil {
		return err
	}
	if !principal(c).CanBook(req.HotelID) {
		return errOtherHotel(req.HotelID)
	}
	return s.hold(c, req, 0, staffView, func() error { return s.recordWalkIn(c, body.walkIn) })
}

// walkIn names a guest without an account by phone, in a staff booking's body.
type walkIn struct {
	Phone string `json:"phone,omitempty"`
	Name  string `json:"name,omitempty"`
	// country is the site's (walkInCountry), where a national phone number is read; none:
	// international numbers only.
	country string
}

// walkInCountry is the country of the hotel or venue a walk-in books at, when its phone is a
// national number (without + or 00) and the site is known; "" otherwise, where the number is
// judged as before (an unknown site is refused later, as it always was).
func (s *Server) walkInCountry(c echo.Context, w walkIn, hotelID, venueID string) (string, error) {
	p := strings.TrimSpace(w.Phone)
	if p == "" || strings.HasPrefix(p, "+") || strings.HasPrefix(p, "00") {
		return "", nil
	}
	ctx := c.Request().Context()
	if hotelID != "" {
		if domain.ValidateID("hotelId", hotelID) != nil {
			return "", nil
		}
		m, err := s.hotelMeta(ctx, hotelID)
		if errors.Is(err, domain.ErrNotFound) {
			return "", nil
		}
		return m.hotel.Country, err
	}
	if domain.ValidateID("venueId", venueID) != nil {
		return "", nil
	}
	v, _, err := s.store.GetVenue(ctx, venueID)
	if errors.Is(err, domain.ErrNotFound) {
		return "", nil
	}
	return v.Country, err
}

// staffCustomer is the customer a staff booking is for: customerId, or the walk-in guest of a
// phone number (their id is the normalised number's).
func staffCustomer(customerID string, w walkIn) (string, error) {
	switch {
	case (customerID == "") == (w.Phone == ""):
		return "", fmt.Errorf("%w: name the guest by customerId, or by phone (and name) for a walk-in", domain.ErrInvalid)
	case customerID != "":
		return customerID, nil
	case domain.Longer(w.Name, 200):
		return "", fmt.Errorf("%w: name is at most 200 characters", domain.ErrInvalid)
	}
	phone, err := domain.NormalisePhoneIn(w.Phone, w.country)
	return domain.WalkInPrefix + phone, err
}

// recordWalkIn finds or creates the walk-in guest a valid staff booking names by phone.
func (s *Server) recordWalkIn(c echo.Context, w walkIn) error {
	if w.Phone == "" {
		return nil
	}
	phone, err := domain.NormalisePhoneIn(w.Phone, w.country)
	if err == nil {
		_, err = s.store.WalkInCustomer(c.Request().Context(), phone, w.Name, principal(c).Subject)
	}
	return err
}

func decodeHoldRequest(c echo.Context) (domain.HoldRequest, error) {
	var req domain.HoldRequest
	if err := domain.ValidateIdempotencyKey(c.Request().Header.Get("Idempotency-Key")); err != nil {
		return req, err
	}
	return req, decodeJSON(c, &req)
}

// hold checks a validated request against the catalogue, then starts the booking workflow and
// waits, in the same call, for the reservation outcome (Update-with-Start); see startBooking.
// maxHolds (0: none) is the customer's active-hold limit. checked, when given, runs once the
// request passed every check, before the booking starts.
func (s *Server) hold(c echo.Context, req domain.HoldRequest, maxHolds int, view viewer, checked ...func() error) error {
	return s.holdThrough(c, req, party{}, maxHolds, view, checked...)
}

// holdThrough is hold for a sale through a channel and agent (none: a direct sale). At a
// supplier's hotel the supplier confirms the stay, and the hold lasts the supplier's hold time.
func (s *Server) holdThrough(c echo.Context, req domain.HoldRequest, pty party, maxHolds int, view viewer, checked ...func() error) error {
	ctx := c.Request().Context()
	m, err := s.hotelMeta(ctx, req.HotelID)
	if err != nil {
		return err
	}
	room, ok := m.room(req.RoomTypeID)
	if !ok {
		// Perhaps added since the process read the hotel: the database decides.
		if _, err := s.checkRoomType(ctx, req.HotelID, req.RoomTypeID, req.Stay); err != nil {
			return err
		}
	}
	if err := req.ValidateWindow(domain.DateOf(s.cfg.Now(), m.hotel.Location), s.cfg.Limits.SaleHorizonDays); err != nil {
		return err
	}
	if err := s.checkPlan(ctx, m, req, pty); err != nil {
		return err
	}
	hotel := m.hotel
	id := domain.BookingID(s.cfg.BookingIDKey, req.CustomerID, principal(c).Subject, c.Request().Header.Get("Idempotency-Key"))
	aboutBooking(c, id)
	// A retry of a hold already made is answered by its booking, never refused early. Whether
	// this request is one: yes, no, unknown (the lookup failed: let the database decide), or no
	// room for the lookup in time (retry shortly).
	retry := func() retryCheck {
		var err error
		switch {
		case knownRepeat(c, id):
			return retryYes
		case !s.gateRead(ctx, func() { _, err = s.store.GetBooking(ctx, id) }):
			return retryNoRoom
		case err == nil:
			return retryYes
		case errors.Is(err, domain.ErrNotFound):
			return retryNo
		}
		return retryUnknown
	}
	busy := func() error {
		telemetry.GateRefusals.WithLabelValues("busy", req.HotelID).Inc()
		c.Response().Header().Set("Retry-After", "1")
		return newError(http.StatusTooManyRequests, "busy", "as many holds as there are rooms left are being made "+
			"for this stay, or rooms are being released: retry shortly")
	}
	// The hotel's rate counts holds that may start a workflow: after the gate's refusals, and
	// not a retry already known to repeat a booking.
	rateLimit := func() error {
		n := s.cfg.HoldLimits.PerHotelPerSecond
		if n <= 0 || s.cfg.Cache == nil || knownRepeat(c, id) || rateExempt(c) {
			return nil
		}
		allowed, after, err := s.cfg.Cache.HotelRate(ctx, req.HotelID, n)
		if err == nil && !allowed {
			if retry() == retryYes {
				return nil
			}
			telemetry.GateRefusals.WithLabelValues("rate_limited", req.HotelID).Inc()
			c.Response().Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(after.Seconds())))))
			return newError(http.StatusTooManyRequests, "rate_limited", "too many holds at hotel %s: at most %d a second",
				req.HotelID, n)
		}
		return nil
	}
	if req.GroupCode != "" && retry() != retryYes {
		// A pickup passes the gate (the cache counts its block's rooms as sold): a code its block
		// refuses is answered here, with nothing written.
		refusal, err := s.store.PickupRefusal(ctx, db.ReserveParams{Request: req, ChannelID: pty.channel, AgentID: pty.agent})
		if err != nil {
			return err
		}
		if refusal != "" {
			return newError(http.StatusConflict, "unavailable", "not on sale: %s", refusal)
		}
	}
	// A group's pickup takes rooms the cache counts as sold (its block's): the database decides.
	if !ok || m.supplier.Mode == db.ModeDirectConnect || req.GroupCode != "" {
		if err := rateLimit(); err != nil {
			return err
		}
	} else {
		switch s.gate(ctx, room.ResourceID, req.Stay, req.Quantity) {
		case gateSoldOut:
			switch retry() {
			case retryNo:
				// No workflow, no transaction: the cache is current and a night is short.
				telemetry.GateRefusals.WithLabelValues("sold_out", req.HotelID).Inc()
				return newError(http.StatusConflict, "unavailable", "not enough rooms left on every night of the stay")
			case retryNoRoom:
				return busy()
			}
		case gateBusy:
			if r := retry(); r == retryNo || r == retryNoRoom {
				return busy()
			}
		}
		if err := rateLimit(); err != nil {
			return err
		}
		done, admitted := s.admit(ctx, id, room.ResourceID, req.Stay, req.Quantity)
		if !admitted {
			if r := retry(); r == retryNo || r == retryNoRoom {
				return busy()
			}
		}
		defer done()
	}
	// Read as it stands, not from the process's copy: the workflow keeps it.
	sup, err := s.store.HotelSupplier(ctx, req.HotelID)
	if err != nil {
		return err
	}
	for _, f := range checked {
		if err := f(); err != nil {
			return err
		}
	}
	in := workflows.BookingInput{Request: req, MaxActiveHolds: maxHolds, HoldTTL: s.cfg.HoldTTL,
		NoShowAt: domain.HotelNoShowAt(req.CheckIn, hotel.Location), ChannelID: pty.channel, AgentID: pty.agent,
		SupplierID: sup.ID}
	if sup.ID != "" {
		in.HoldTTL = time.Duration(sup.HoldMinutes) * time.Minute
		if s.cfg.SupplierHoldTTL > 0 {
			in.HoldTTL = s.cfg.SupplierHoldTTL
		}
		in.SupplierStuckAfter, in.SupplierTellFor = s.cfg.SupplierStuckAfter, s.cfg.SupplierTellFor
	}
	return s.startBooking(c, in, req.CustomerID, req.Fingerprint(), view)
}

// startBooking starts a booking's workflow (a stay or a venue order, in) and waits, in the same
// call, for the reservation outcome (Update-with-Start). The workflow id is derived from the
// customer, the caller and the Idempotency-Key, so a retry reaches the same workflow and two
// concurrent requests with one key create one booking.
func (s *Server) startBooking(c echo.Context, in workflows.BookingInput, customerID, fingerprint string, view viewer) error {
	ctx := c.Request().Context()
	key, createdBy := c.Request().Header.Get("Idempotency-Key"), principal(c).Subject
	id := domain.BookingID(s.cfg.BookingIDKey, customerID, createdBy, key)
	aboutBooking(c, id)
	if in.MaxActiveHolds > 0 {
		if err := s.checkActiveHolds(c, customerID, id, in.Order != nil); err != nil {
			return err
		}
	}
	in.BookingID, in.IdempotencyKey, in.CreatedBy = id, key, createdBy
	in.ReserveTimeout, in.LateWindow = reserveTimeout(s.cfg.WorkflowTimeout), s.cfg.LateWindow
	in.ReserveLocally, in.ConfirmLocally = s.cfg.ReserveLocally, s.cfg.ConfirmLocally
	in.MaxRefundAttempts, in.RefundBackoff = s.cfg.MaxRefundAttempts, s.cfg.RefundBackoff
	if s.cfg.NoShowAfter > 0 {
		in.NoShowAt = s.cfg.Now().Add(s.cfg.NoShowAfter).UTC()
	}

	// Given at the start, the workflow need not upsert them in its first task.
	attributes := workflows.GiveStartAttributes(&in, domain.CustomerSearchKey(s.cfg.BookingIDKey, customerID))

	ctx, cancel := context.WithTimeout(ctx, s.cfg.WorkflowTimeout)
	defer cancel()
	start := s.temporal.NewWithStartWorkflowOperation(client.StartWorkflowOptions{
		ID:                       id,
		TaskQueue:                s.cfg.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		// An ended booking's id is never reused: its key stays spent.
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		TypedSearchAttributes: attributes,
	}, workflows.BookingWorkflowName, in)
	handle, err := s.temporal.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: start,
		UpdateOptions: client.UpdateWorkflowOptions{
			UpdateName: workflows.UpdateHold, Args: []any{fingerprint},
			WaitForStage: client.WorkflowUpdateStageCompleted,
		},
	})
	state, fromDB, err := s.outcome(ctx, id, handle, err)
	switch {
	case errors.Is(err, domain.ErrTooManyHolds):
		return s.tooManyHolds(c, customerID, in.Order != nil)
	case errors.Is(err, errAbandoned), fromDB && err == nil && state.Booking.Abandoned:
		return newError(http.StatusServiceUnavailable, "reservation_abandoned", "the reservation did not complete in "+
			"time and nothing is held for it: send the request again with a new Idempotency-Key")
	case fromDB && errors.Is(err, domain.ErrNotFound):
		// The workflow for this key ended without a booking: refused at the hold limit and not
		// retried within the late window, or its room type vanished.
		return newError(http.StatusConflict, "idempotency_key_spent",
			"this Idempotency-Key was used by a request that ended without a booking; send the request with a new key")
	case err != nil:
		return err
	}
	if fromDB && state.Booking.Fingerprint != fingerprint {
		return domain.ErrIdempotencyMismatch
	}
	v := view(state.Booking, state.Reason)
	switch state.Booking.Status {
	case domain.StatusRejected:
		if stored, err := s.store.GetBooking(ctx, id); err == nil && stored.Refusal != "" {
			// The workflow's state has the refusal's message, the stored row says which sale
			// rule (or night without a rate) refused it, as a customer is told too.
			v = view(stored, state.Reason)
		}
		return newError(http.StatusConflict, "unavailable", "%s", v.Reason)
	case domain.StatusHold:
		return created(c, bookingLocation(c, state.Booking.ID), v)
	}
	return c.JSON(http.StatusOK, v) // a retry after the hold moved on
}

// checkRoomType answers 404 for an unknown hotel or room type and 400 for a stay outside the
// window on sale, judged by the hotel's own calendar; it returns the hotel.
func (s *Server) checkRoomType(ctx context.Context, hotelID, roomTypeID string, stay domain.Stay) (db.Hotel, error) {
	hotel, err := s.store.GetHotel(ctx, hotelID)
	if err != nil {
		return hotel, err
	}
	ok, err := s.store.RoomTypeExists(ctx, hotelID, roomTypeID)
	if err != nil {
		return hotel, err
	}
	if !ok {
		return hotel, newError(http.StatusNotFound, "not_found", "hotel %s has no room type %s", hotelID, roomTypeID)
	}
	return hotel, stay.ValidateWindow(domain.DateOf(s.cfg.Now(), hotel.Location), s.cfg.Limits.SaleHorizonDays)
}

// errAbandoned: the reservation was abandoned past its time bound; nothing is held.
var errAbandoned = errors.New("reservation abandoned")

// reserveTimeout bounds a reservation, retries included, well inside how long the API waits for
// its answer, so the workflow abandons it and says so before the API gives up.
func reserveTimeout(apiWait time.Duration) time.Duration { return apiWait * 2 / 3 }

// WorkflowBusy reports whether err is Temporal refusing an update because the workflow's run has
// too many in flight (ResourceExhausted) or has taken all it may (FailedPrecondition, whose
// wording changes between server versions).
func WorkflowBusy(err error) bool {
	var exhausted *serviceerror.ResourceExhausted
	var precondition *serviceerror.FailedPrecondition
	if errors.As(err, &exhausted) {
		return true
	}
	if !errors.As(err, &precondition) {
		return false
	}
	msg := strings.ToLower(precondition.Message)
	return strings.Contains(msg, "limit") && strings.Contains(msg, "updates")
}

// workflowError turns a failed update into an API error: a refused request keeps its domain
// meaning; a timeout says the call may be retried.
func workflowError(err error) error {
	var appErr *temporal.ApplicationError
	var timeout *client.WorkflowUpdateServiceTimeoutOrCanceledError
	switch {
	case errors.As(err, &timeout), errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return newError(http.StatusServiceUnavailable, "pending",
			"the booking is still being processed; retry with the same Idempotency-Key")
	case WorkflowBusy(err):
		// Too many requests in flight for one booking, or its run took all the updates it may:
		// it hands over to a new run as soon as nothing is in flight.
		return newError(http.StatusServiceUnavailable, "workflow_busy",
			"the booking's workflow takes no more requests for the moment; retry shortly")
	case errors.As(err, &appErr) && appErr.Type() == workflows.ErrTypeIdempotencyMismatch:
		return fmt.Errorf("%w: %s", domain.ErrIdempotencyMismatch, appErr.Message())
	case errors.As(err, &appErr) && appErr.Type() == workflows.ErrTypeTooManyHolds:
		return fmt.Errorf("%w: %s", domain.ErrTooManyHolds, appErr.Message())
	case errors.As(err, &appErr) && appErr.Type() == workflows.ErrTypeAlreadyOrdered:
		return newError(http.StatusConflict, "already_ordered",
			"you already have an active order for this slot (%s)", appErr.Message())
	case errors.As(err, &appErr) && appErr.Type() == workflows.ErrTypeTooEarly:
		return errNoShowTooEarly
	case errors.As(err, &appErr) && appErr.Type() == workflows.ErrTypeReservationAbandoned:
		return errAbandoned
	}
	return err
}

// retryCheck is what the gate found of whether a hold request repeats one already made.
type retryCheck int

const (
	retryNo      retryCheck = iota // no booking has its id
	retryYes                       // its booking exists: answer with it
	retryUnknown                   // the lookup failed: the database decides
	retryNoRoom                    // no room for the lookup in time: retry shortly
)
