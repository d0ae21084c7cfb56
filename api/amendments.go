package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/suppliers"
	"github.com/bookflow/bookflow/workflows"
)

// amendmentView is an amendment's answer: the amendment and the booking it leaves.
type amendmentView struct {
	Amendment domain.Amendment `json:"amendment"`
	Booking   bookingView      `json:"booking"`
}

// amender is who amends: how the booking in the path is found for them, what they may change
// of it, and how it is shown to them.
type amender struct {
	load  func(echo.Context) (domain.Booking, error)
	check func(domain.Booking, domain.Change) error
	view  viewer
}

// customerAmender: customers amend their own booking until its free cancellation ends, and not
// once the stay has begun.
func (s *Server) customerAmender() amender {
	return amender{load: s.ownBooking, view: customerView, check: func(b domain.Booking, _ domain.Change) error {
		now := s.cfg.Now()
		switch {
		case b.VenueID != "" && b.Status.HoldsInventory() && !now.Before(b.OrderStarts()):
			return newError(http.StatusConflict, "stay_started", "the booking has begun: the front desk can still change it")
		case b.VenueID != "" && b.Status == domain.StatusCompleted:
			// Checked in (up to an hour before it starts): in use, as for a cancel, and past what
			// FreeCancelEnded, which judges confirmed orders, would close.
			return newError(http.StatusConflict, "stay_started", "the order was checked in: the front desk can still change it")
		case b.CancellationPolicy.NonRefundable:
			return newError(http.StatusConflict, "amendment_closed", "a non-refundable booking is not changed online; "+
				"the front desk can still change it")
		case b.FreeCancelEnded(now):
			return newError(http.StatusConflict, "amendment_closed", "changes are open until free cancellation ends, %d hours "+
				"before the booking starts; the front desk can still change it", b.CancellationPolicy.FreeUntilHours)
		case b.VenueID == "" && b.StayBegun(now) && b.Status.HoldsInventory():
			return newError(http.StatusConflict, "stay_started", "the stay has begun: the front desk can still change it")
		case b.FreeAmendEnded(now):
			return newError(http.StatusConflict, "amendment_closed", "changes are open until free cancellation ends, %d hours "+
				"before check-in; the front desk can still change the booking", b.CancellationPolicy.FreeUntilHours)
		}
		return nil
	}}
}

// staffAmender: the front desk amends its hotels' bookings at any time (once the stay has
// begun, only from today on), admins any.
func (s *Server) staffAmender() amender {
	return amender{load: func(c echo.Context) (domain.Booking, error) { return s.staffBooking(c, domain.Principal.CanBookAt) },
		view: staffView, check: func(domain.Booking, domain.Change) error { return nil }}
}

// staffAmenderReading finds the booking for staff who may read it (finance included).
func (s *Server) staffAmenderReading() amender {
	a := s.staffAmender()
	a.load = func(c echo.Context) (domain.Booking, error) { return s.staffBooking(c, domain.Principal.CanReadAt) }
	return a
}

// agentAmender: agents amend the bookings they sold before the stay begins; it stays on their
// channel, taking from its allocation first.
func (s *Server) agentAmender() amender {
	return amender{load: s.agentBooking, view: staffView, check: func(b domain.Booking, c domain.Change) error {
		switch {
		case b.StayBegun(s.cfg.Now()) && b.Status.HoldsInventory():
			return newError(http.StatusConflict, "stay_started", "the stay has begun: the front desk can still change it")
		case c.RatePlan != "" && b.CancellationPolicy.NonRefundable:
			// Moved to a flexible plan, it could be cancelled for a refund its sale never offered.
			return newError(http.StatusConflict, "amendment_closed", "a non-refundable booking keeps its plan; "+
				"the front desk can still move it")
		}
		return nil
	}}
}

// amendBooking changes what a booking holds: 200 with the amendment APPLIED (a price that
// fell on a paid booking is refunded by its policy) or BALANCE_DUE (a paid booking that costs
// more: the balance is due by dueBy); 409 unavailable naming the night when the new units cannot
// be sold, and nothing changed.
func (s *Server) amendBooking(who amender) echo.HandlerFunc {
	return func(c echo.Context) error {
		key := c.Request().Header.Get("Idempotency-Key")
		if err := domain.ValidateIdempotencyKey(key); err != nil {
			return err
		}
		b, change, err := s.readAmendment(c, who)
		if err != nil {
			return err
		}
		if done, err := s.store.AmendmentByKey(c.Request().Context(), b.ID, key); err == nil {
			return s.answerAmendment(c, who, done, change) // a retry: the outcome it had, judged on the booking as it was then
		} else if !errors.Is(err, domain.ErrNotFound) {
			return err
		}
		change = change.Against(domain.UnitsOf(b)) // naming the booking's plan is naming none
		if err := s.validateAmendment(c, b, change); err != nil {
			return err
		}
		if err := who.check(b, change); err != nil {
			return err
		}
		answer, err := s.askAmend(c, b.ID, workflows.AmendRequest{IdempotencyKey: key, Change: change, Actor: principal(c).Subject})
		if err != nil {
			// A retry that raced its first attempt (refused as changing nothing, now that the
			// first was carried out) has the first one's outcome.
			if done, lookErr := s.store.AmendmentByKey(c.Request().Context(), b.ID, key); lookErr == nil {
				return s.answerAmendment(c, who, done, change)
			}
			return err
		}
		return s.answerAmendment(c, who, answer.Amendment, change)
	}
}

// quoteAmendment answers whether an amendment can be sold and what it would cost, as
// amendBooking would judge it now, without taking anything.
func (s *Server) quoteAmendment(who amender) echo.HandlerFunc {
	return func(c echo.Context) error {
		b, change, err := s.readAmendment(c, who)
		if err != nil {
			return err
		}
		change = change.Against(domain.UnitsOf(b))
		if err := s.validateAmendment(c, b, change); err != nil {
			return err
		}
		if err := who.check(b, change); err != nil {
			return err
		}
		quote, err := activities.QuoteAtSupplier(c.Request().Context(), s.store, suppliers.Client{}, b.ID, change)
		if err != nil {
			return err
		}
		q, _, err := s.store.Amend(c.Request().Context(), db.AmendParams{BookingID: b.ID,
			Change: change, Actor: principal(c).Subject, DryRun: true, RefundOf: activities.RefundOf(s.cfg.Now()), SupplierPrice: quote})
		if err != nil {
			return quoteRefusal(err)
		}
		return s.answerAmendment(c, who, q, change)
	}
}

// listAmendments lists a booking's amendments, oldest first.
func (s *Server) listAmendments(who amender) echo.HandlerFunc {
	return func(c echo.Context) error {
		b, err := who.load(c)
		if err != nil {
			return err
		}
		list, err := s.store.Amendments(c.Request().Context(), b.ID)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string][]domain.Amendment{"amendments": list})
	}
}

// readAmendment loads the booking in the path for who and reads the change asked of it.
func (s *Server) readAmendment(c echo.Context, who amender) (domain.Booking, domain.Change, error) {
	var change domain.Change
	b, err := who.load(c)
	if err != nil {
		return b, change, err
	}
	return b, change, decodeJSON(c, &change)
}

// validateAmendment checks the change against the booking as it is: a stay, a change that
// changes something, a stay a new booking could have, an existing room type, a check-in in the
// window on sale, nothing before today once the stay has begun, and a plan it may move to.
func (s *Server) validateAmendment(c echo.Context, b domain.Booking, change domain.Change) error {
	if err := change.Validate(domain.UnitsOf(b), s.cfg.Limits); err != nil {
		return err
	}
	if b.VenueID != "" {
		return s.checkOrderLines(c, b, change.Lines)
	}
	to := change.Apply(domain.UnitsOf(b))
	if change.RatePlan != "" {
		if err := s.checkNewPlan(c.Request().Context(), b, to); err != nil {
			return err
		}
	}
	switch {
	case b.StayBegun(s.cfg.Now()) && b.Status.HoldsInventory():
		if to.CheckIn != b.CheckIn || to.RoomTypeID != b.RoomTypeID || to.Quantity != b.Quantity ||
			to.RatePlan != domain.UnitsOf(b).RatePlan {
			return newError(http.StatusConflict, "stay_started",
				"the stay has begun: only its check-out can move (the nights before today are used)")
		}
	case to.RoomTypeID != b.RoomTypeID || to.CheckIn != b.CheckIn:
		// An unknown room type answers 404, a check-in outside the window on sale 400.
		_, err := s.checkRoomType(c.Request().Context(), b.HotelID, to.RoomTypeID, to.Stay())
		return err
	}
	return nil
}

// checkNewPlan refuses, before the workflow is asked, a move to a plan a hold of the new stay
// naming it would be refused (404 an unknown plan, 400 one that cannot sell it) and one no stay
// of the booking may make (409 not_amendable: a supplier's booking, a deposit plan's, or into a
// deposit plan). The database judges it again as the plan stands then.
func (s *Server) checkNewPlan(ctx context.Context, b domain.Booking, to domain.Units) error {
	plan, err := s.store.GetRatePlan(ctx, b.HotelID, to.RatePlan)
	if err != nil {
		return err
	}
	if why := b.PlanChangeLimit(plan); why != "" {
		return newError(http.StatusConflict, "not_amendable", "%s", why)
	}
	if why := plan.CannotSell(to.RoomTypeID, b.ChannelID); why != "" {
		return fmt.Errorf("%w: %s", domain.ErrInvalid, why)
	}
	return nil
}

// checkOrderLines takes a venue order's new lines in UTC, as a new order's are stored, and
// answers 400 when one cuts a unit of its resource.
func (s *Server) checkOrderLines(c echo.Context, b domain.Booking, lines []domain.OrderLine) error {
	for i := range lines {
		lines[i].Start, lines[i].End = lines[i].Start.UTC(), lines[i].End.UTC()
	}
	return s.checkWholeUnits(c.Request().Context(), domain.OrderRequest{CustomerID: b.CustomerID, VenueID: b.VenueID, Lines: lines})
}

// answerAmendment answers with an amendment's outcome: 409 unavailable when it was refused.
func (s *Server) answerAmendment(c echo.Context, who amender, a domain.Amendment, asked domain.Change) error {
	// A retry may name the plan the booking had before the amendment: that is naming none.
	if a.Fingerprint != "" && a.Fingerprint != asked.Fingerprint() && a.Fingerprint != asked.Against(a.Before).Fingerprint() {
		return domain.ErrIdempotencyMismatch
	}
	if a.Status == domain.AmendmentRefused {
		return newError(http.StatusConflict, "unavailable", "%s", a.Reason)
	}
	b, err := s.store.GetBooking(c.Request().Context(), a.BookingID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, amendmentView{Amendment: a, Booking: who.view(b, "")})
}

// askAmend sends the amend update to the booking's workflow and waits for its answer.
func (s *Server) askAmend(c echo.Context, id string, req workflows.AmendRequest) (workflows.AmendAnswer, error) {
	var answer workflows.AmendAnswer
	err := s.update(c, id, workflows.UpdateAmend, req, &answer)
	var appErr *temporal.ApplicationError
	switch {
	case err == nil:
		return answer, nil
	case isWorkflowGone(err):
		return answer, newError(http.StatusConflict, "not_amendable", "booking %s has ended", id)
	case errors.As(err, &appErr):
		if apiErr := amendRefusal(appErr.Type(), appErr.Message()); apiErr != nil {
			return answer, apiErr
		}
	}
	return answer, workflowError(err)
}

// update sends an update with its one argument to the booking's workflow and waits, as long as
// the API waits for a workflow, for its answer.
func (s *Server) update(c echo.Context, id, name string, arg, answer any) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), s.cfg.WorkflowTimeout)
	defer cancel()
	handle, err := s.temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: id, UpdateName: name, WaitForStage: client.WorkflowUpdateStageCompleted, Args: []any{arg},
	})
	if err == nil {
		err = handle.Get(ctx, answer)
	}
	return err
}

// amendRefusal is the answer to an amendment refused for the booking's state (nil for other
// errors), by the refusal's type.
func amendRefusal(kind, msg string) *Error {
	switch kind {
	case activities.ErrTypeBalanceDue:
		return newError(http.StatusConflict, "balance_due", "an earlier amendment waits for its balance: pay it or let it lapse first")
	case activities.ErrTypeStayStarted:
		return newError(http.StatusConflict, "stay_started", "%s", msg)
	case activities.ErrTypeNotAmendable, workflows.ErrTypeNoChange, activities.ErrTypeConflict:
		return newError(http.StatusConflict, "not_amendable", "%s", msg)
	case activities.ErrTypeInvalid:
		return newError(http.StatusBadRequest, "invalid_request", "%s", msg)
	}
	return nil
}

// quoteRefusal is the answer to a quote the database refused for the booking's state, as the
// amendment would be answered.
func quoteRefusal(err error) error {
	for _, t := range []struct {
		err  error
		kind string
	}{{db.ErrBalanceDue, activities.ErrTypeBalanceDue}, {db.ErrStayStarted, activities.ErrTypeStayStarted},
		{db.ErrNotAmendable, activities.ErrTypeNotAmendable}} {
		if errors.Is(err, t.err) {
			return amendRefusal(t.kind, err.Error())
		}
	}
	return err
}
