package api

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// EventTypes are the integrator events a subscriber may ask for (queued by migration 00029's
// triggers, payment_stuck by the booking workflow's own step, the waitlist's by migration
// 00050's, and the group blocks' by 00051's).
var EventTypes = []string{"booking.held", "booking.confirmed", "booking.amended", "booking.cancelled",
	"booking.refunded", "booking.checked_in", "booking.no_show", "booking.expired", "booking.rejected", "booking.payment_stuck",
	"waitlist.joined", "waitlist.offered", "waitlist.expired", "waitlist.declined", "waitlist.closed",
	"block.created", "block.definite", "block.released", "block.cancelled"}

// agentSubscriberPrefix starts the id of an agent's webhook as a subscriber (migration 00029).
const agentSubscriberPrefix = "agent."

// secretOverlap is how long a rotated-out secret still signs deliveries beside the new one.
const secretOverlap = 24 * time.Hour

func newEventSecret() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return "whsec_" + base64.RawURLEncoding.EncodeToString(b)
}

// subscriberAnswer is a subscriber as admins see it; secret only when just made.
type subscriberAnswer struct {
	db.EventSubscriber
	Secret string `json:"secret,omitempty"`
}

// putEventSubscriber creates a subscriber (its signing secret made here and shown this once) or
// changes its URL and events.
func (s *Server) putEventSubscriber(c echo.Context) error {
	var body struct {
		URL    string   `json:"url"`
		Events []string `json:"events"`
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	sub := db.EventSubscriber{ID: c.Param("subscriberId"), URL: body.URL, Events: body.Events}
	if err := domain.ValidateID("subscriberId", sub.ID); err != nil {
		return err
	}
	if strings.HasPrefix(sub.ID, agentSubscriberPrefix) {
		return fmt.Errorf("%w: subscriber ids starting %q are agents' webhooks, changed with the agent", domain.ErrInvalid,
			agentSubscriberPrefix)
	}
	if sub.URL == "" {
		return fmt.Errorf("%w: url is required", domain.ErrInvalid)
	}
	if err := validateHTTPURL("url", sub.URL); err != nil {
		return err
	}
	if len(sub.Events) == 0 {
		return fmt.Errorf("%w: events names at least one of %v", domain.ErrInvalid, EventTypes)
	}
	for _, e := range sub.Events {
		if !slices.Contains(EventTypes, e) {
			return fmt.Errorf("%w: %q is not an event; events are %v", domain.ErrInvalid, e, EventTypes)
		}
	}
	slices.Sort(sub.Events)
	sub.Events = slices.Compact(sub.Events)
	secret := newEventSecret()
	stored, isNew, err := s.store.PutEventSubscriber(c.Request().Context(), sub, secret)
	if err != nil {
		return err
	}
	if err := s.audit(c, "put-event-subscriber", "", "", map[string]any{"subscriberId": sub.ID, "url": sub.URL,
		"events": sub.Events}); err != nil {
		return err
	}
	if !isNew {
		return c.JSON(http.StatusOK, subscriberAnswer{EventSubscriber: stored})
	}
	return created(c, "/api/v1/admin/event-subscribers/"+sub.ID, subscriberAnswer{EventSubscriber: stored, Secret: secret})
}

// getEventSubscriber shows one subscriber, without its secrets.
func (s *Server) getEventSubscriber(c echo.Context) error {
	sub, err := s.store.EventSubscriber(c.Request().Context(), c.Param("subscriberId"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, subscriberAnswer{EventSubscriber: sub})
}

// listEventSubscribers lists every subscriber, without secrets.
func (s *Server) listEventSubscribers(c echo.Context) error {
	subs, err := s.store.EventSubscribers(c.Request().Context())
	if err != nil {
		return err
	}
	out := make([]subscriberAnswer, len(subs))
	for i, sub := range subs {
		out[i] = subscriberAnswer{EventSubscriber: sub}
	}
	return c.JSON(http.StatusOK, map[string]any{"subscribers": out})
}

// rotateEventSecret gives the subscriber a new secret, shown this once; the old one still signs
// beside it for a day, so the integrator switches without missing a delivery.
func (s *Server) rotateEventSecret(c echo.Context) error {
	secret := newEventSecret()
	sub, err := s.store.RotateEventSecret(c.Request().Context(), c.Param("subscriberId"), secret, secretOverlap)
	if err != nil {
		return err
	}
	if err := s.audit(c, "rotate-event-secret", "", "", map[string]any{"subscriberId": sub.ID}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, subscriberAnswer{EventSubscriber: sub, Secret: secret})
}

// eventDeliveries is a subscriber's delivery log, newest first.
func (s *Server) eventDeliveries(c echo.Context) error {
	id := c.Param("subscriberId")
	if _, err := s.store.EventSubscriber(c.Request().Context(), id); err != nil {
		return err
	}
	limit, err := pageLimit(c, 50)
	if err != nil {
		return err
	}
	status := c.QueryParam("status")
	if status != "" && !slices.Contains([]string{"pending", "delivered", "parked"}, status) {
		return fmt.Errorf("%w: status is pending, delivered or parked", domain.ErrInvalid)
	}
	var before int64
	if b := c.QueryParam("before"); b != "" {
		if before, err = strconv.ParseInt(b, 10, 64); err != nil || before < 1 {
			return fmt.Errorf("%w: before is a delivery id (the previous page's next)", domain.ErrInvalid)
		}
	}
	list, err := s.store.EventDeliveries(c.Request().Context(), id, status, before, limit)
	if err != nil {
		return err
	}
	page := map[string]any{"deliveries": list}
	if len(list) == limit {
		page["next"] = strconv.FormatInt(list[len(list)-1].ID, 10)
	}
	return c.JSON(http.StatusOK, page)
}

// redeliverEvent sends a parked (or delivered) delivery again, with its own event id.
func (s *Server) redeliverEvent(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("deliveryId"), 10, 64)
	if err != nil || id < 1 {
		return fmt.Errorf("%w: deliveryId is a delivery's id", domain.ErrInvalid)
	}
	d, err := s.store.Redeliver(c.Request().Context(), id)
	if err != nil {
		return err
	}
	if err := s.audit(c, "redeliver-event", d.BookingID, "", map[string]any{"deliveryId": d.ID, "eventId": d.EventID,
		"subscriberId": d.SubscriberID}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, d)
}
