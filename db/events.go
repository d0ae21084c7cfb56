package db

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// EventSubscriber is an integrator's subscription to booking events (migration 00029): the
// triggers queue a delivery of every event it wants in the transaction that commits the change.
type EventSubscriber struct {
	ID string `json:"id"`
	// AgentID is set on an agent's webhook, which takes the agent's notifications and is
	// changed with the agent (PutAgent), never on its own.
	AgentID string   `json:"agentId,omitempty"`
	URL     string   `json:"url"`
	Events  []string `json:"events"`
	Secret  string   `json:"-"`
	// PreviousSecret also signs deliveries until PreviousSecretUntil, while the subscriber
	// rotates to Secret; so do OlderSecrets, the ones rotated out before it within the overlap
	// (a rotation retried), each until its own end (migration 00031).
	PreviousSecret      string          `json:"-"`
	PreviousSecretUntil *time.Time      `json:"previousSecretUntil,omitempty"`
	OlderSecrets        []RetiredSecret `json:"-"`
	CreatedAt           time.Time       `json:"createdAt"`
	UpdatedAt           time.Time       `json:"updatedAt"`
}

// RetiredSecret is a secret rotated out that still signs deliveries until Until.
type RetiredSecret struct {
	Secret string    `json:"secret"`
	Until  time.Time `json:"until"`
}

// Secrets are the secrets a delivery is signed with at now: the current one, and each one
// rotated out while it is still honoured.
func (s EventSubscriber) Secrets(now time.Time) []string {
	out := []string{s.Secret}
	if s.PreviousSecret != "" && s.PreviousSecretUntil != nil && now.Before(*s.PreviousSecretUntil) {
		out = append(out, s.PreviousSecret)
	}
	for _, r := range s.OlderSecrets {
		if r.Secret != "" && now.Before(r.Until) && !slices.Contains(out, r.Secret) {
			out = append(out, r.Secret)
		}
	}
	return out
}

const subscriberColumns = `id, COALESCE(agent_id, ''), url, events, secret, COALESCE(previous_secret, ''), previous_secret_until,
	older_secrets, created_at, updated_at`

func scanSubscriber(r pgx.Row) (EventSubscriber, error) {
	var s EventSubscriber
	err := r.Scan(&s.ID, &s.AgentID, &s.URL, &s.Events, &s.Secret, &s.PreviousSecret, &s.PreviousSecretUntil,
		&s.OlderSecrets, &s.CreatedAt, &s.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, fmt.Errorf("%w: event subscriber", domain.ErrNotFound)
	}
	return s, err
}

// errAgentSubscriber refuses to change an agent's webhook as a subscriber.
func errAgentSubscriber(id string) error {
	return fmt.Errorf("%w: %s is an agent's webhook: change it with the agent (PUT /api/v1/admin/agents/{agentId})",
		domain.ErrConflict, id)
}

// PutEventSubscriber creates the subscriber with secret, or changes its URL and events (its
// secrets stay); created says which. An agent's webhook is refused.
func (s *Store) PutEventSubscriber(ctx context.Context, sub EventSubscriber, secret string) (out EventSubscriber, created bool, err error) {
	err = s.pool.QueryRow(ctx, `INSERT INTO event_subscribers (id, url, events, secret) VALUES ($1, $2, $3, $4)
		ON CONFLICT (id) DO UPDATE SET url = EXCLUDED.url, events = EXCLUDED.events, updated_at = now()
		WHERE event_subscribers.agent_id IS NULL
		RETURNING (xmax = 0)`, sub.ID, sub.URL, sub.Events, secret).Scan(&created)
	if errors.Is(err, pgx.ErrNoRows) {
		return out, false, errAgentSubscriber(sub.ID)
	}
	if err != nil {
		return out, false, err
	}
	out, err = s.EventSubscriber(ctx, sub.ID)
	return out, created, err
}

// RotateEventSecret makes secret the subscriber's, the old one still signing for overlap, and
// the ones it replaced before still signing until their own ends: a rotation retried because
// its answer was lost leaves the secret the integrator holds signing for the overlap (migration
// 00031). An agent's secret is the agent's (PutAgent).
func (s *Store) RotateEventSecret(ctx context.Context, id, secret string, overlap time.Duration) (EventSubscriber, error) {
	sub, err := scanSubscriber(s.pool.QueryRow(ctx, `UPDATE event_subscribers
		SET older_secrets = retired_secrets(older_secrets, previous_secret, previous_secret_until, $2),
		previous_secret = secret, previous_secret_until = now() + $3 * interval '1 microsecond', secret = $2, updated_at = now()
		WHERE id = $1 AND agent_id IS NULL RETURNING `+subscriberColumns, id, secret, overlap.Microseconds()))
	if errors.Is(err, domain.ErrNotFound) {
		if existing, getErr := s.EventSubscriber(ctx, id); getErr == nil && existing.AgentID != "" {
			return sub, errAgentSubscriber(id)
		}
	}
	return sub, err
}

// QueuePaymentStuck queues the booking.payment_stuck event of a refund the booking workflow
// handed to an operator (the workflow's own step: nothing in the tables changes when it does),
// once per key.
func (s *Store) QueuePaymentStuck(ctx context.Context, key, bookingID, step, reason string) error {
	_, err := s.pool.Exec(ctx, `SELECT queue_booking_event('evt_ps_' || $1, 'booking.payment_stuck', $2,
		jsonb_build_object('step', $3::text, 'reason', $4::text))`, key, bookingID, step, reason)
	return err
}

// QueueAgentNotification queues the delivery of an agent's notification to its webhook, once;
// an agent without a webhook gets none. The notification is the body's home: this release builds
// the body from it when the delivery is read (withAgentBodies). The delivery's payload gets the
// same body, written only for the previous release's workers, which post payload as it is while
// they still run (migration 00030); nothing here reads it, and the next release's migration
// clears it.
func (s *Store) QueueAgentNotification(ctx context.Context, n AgentNotification) error {
	body, err := agentNotificationBody(n)
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO event_deliveries (event_id, subscriber_id, booking_id, type, payload,
			agent_notification_id)
		SELECT 'agent_notification_' || $1::bigint, s.id, $3, 'agent.' || $4, $5, $1
		FROM event_subscribers s WHERE s.agent_id = $2 AND s.url <> ''
		ON CONFLICT (subscriber_id, event_id) DO NOTHING`, n.ID, n.AgentID, n.BookingID, n.Event, body)
	return err
}

// agentNotificationBody is what an agent's webhook receives: {id, event, bookingId, detail, at,
// amendmentId?}, as Go marshals it. (Before migration 00030 the sender posted PostgreSQL's text
// of the stored jsonb instead: the same JSON in another byte layout, keys in another order.)
func agentNotificationBody(n AgentNotification) ([]byte, error) {
	return json.Marshal(struct {
		ID          int64     `json:"id"`
		Event       string    `json:"event"`
		BookingID   string    `json:"bookingId"`
		Detail      string    `json:"detail"`
		At          time.Time `json:"at"`
		AmendmentID *int64    `json:"amendmentId,omitempty"`
	}{n.ID, n.Event, n.BookingID, n.Detail, n.CreatedAt, n.AmendmentID})
}

// withAgentBodies gives each of ds that delivers an agent's notification its body, read from the
// notification.
func (s *Store) withAgentBodies(ctx context.Context, ds []EventDelivery) ([]EventDelivery, error) {
	var ids []int64
	for _, d := range ds {
		if d.agentNotificationID != nil {
			ids = append(ids, *d.agentNotificationID)
		}
	}
	if len(ids) == 0 {
		return ds, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT `+agentNotificationColumns+` FROM agent_notifications WHERE id = ANY($1)`, ids)
	if err != nil {
		return ds, err
	}
	found, err := pgx.CollectRows(rows, pgx.RowToStructByPos[AgentNotification])
	if err != nil {
		return ds, err
	}
	bodies := make(map[int64][]byte, len(found))
	for _, n := range found {
		if bodies[n.ID], err = agentNotificationBody(n); err != nil {
			return ds, err
		}
	}
	for i, d := range ds {
		if d.agentNotificationID != nil {
			ds[i].Payload = bodies[*d.agentNotificationID]
		}
	}
	return ds, nil
}

// agentNotificationColumns are AgentNotification's, in its order.
const agentNotificationColumns = `id, agent_id, booking_id, event, detail, created_at, delivered_at, last_error, amendment_id`

// EventSubscriber returns one subscriber.
func (s *Store) EventSubscriber(ctx context.Context, id string) (EventSubscriber, error) {
	return scanSubscriber(s.pool.QueryRow(ctx, `SELECT `+subscriberColumns+` FROM event_subscribers WHERE id = $1`, id))
}

// EventSubscribers lists every subscriber by id.
func (s *Store) EventSubscribers(ctx context.Context) ([]EventSubscriber, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+subscriberColumns+` FROM event_subscribers ORDER BY id`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (EventSubscriber, error) { return scanSubscriber(r) })
}

// EventDelivery is one event on its way to one subscriber, and what became of it.
type EventDelivery struct {
	ID            int64           `json:"id"`
	EventID       string          `json:"eventId"`
	SubscriberID  string          `json:"subscriberId"`
	BookingID     string          `json:"bookingId"`
	Type          string          `json:"type"`
	Payload       json.RawMessage `json:"payload"`
	CreatedAt     time.Time       `json:"createdAt"`
	Status        string          `json:"status"` // pending, delivered or parked
	Attempts      int             `json:"attempts"`
	RetryFrom     time.Time       `json:"retryFrom"`
	NextAttemptAt time.Time       `json:"nextAttemptAt"`
	LastStatus    *int            `json:"lastStatus,omitempty"`
	LastError     string          `json:"lastError,omitempty"`
	DeliveredAt   *time.Time      `json:"deliveredAt,omitempty"`
	// agentNotificationID names the agent's notification whose body this delivers.
	agentNotificationID *int64
}

const deliveryColumns = `id, event_id, subscriber_id, booking_id, type, payload, created_at, status, attempts,
	retry_from, next_attempt_at, last_status, last_error, delivered_at, agent_notification_id`

// collectDeliveries reads rows of deliveryColumns, with their bodies.
func (s *Store) collectDeliveries(ctx context.Context, rows pgx.Rows) ([]EventDelivery, error) {
	ds, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (EventDelivery, error) { return scanDelivery(r) })
	if err != nil {
		return nil, err
	}
	return s.withAgentBodies(ctx, ds)
}

// oneDelivery reads one row of deliveryColumns, with its body.
func (s *Store) oneDelivery(ctx context.Context, r pgx.Row) (EventDelivery, error) {
	d, err := scanDelivery(r)
	if err != nil {
		return d, err
	}
	ds, err := s.withAgentBodies(ctx, []EventDelivery{d})
	return ds[0], err
}

func scanDelivery(r pgx.Row) (EventDelivery, error) {
	var d EventDelivery
	err := r.Scan(&d.ID, &d.EventID, &d.SubscriberID, &d.BookingID, &d.Type, &d.Payload, &d.CreatedAt, &d.Status,
		&d.Attempts, &d.RetryFrom, &d.NextAttemptAt, &d.LastStatus, &d.LastError, &d.DeliveredAt, &d.agentNotificationID)
	if errors.Is(err, pgx.ErrNoRows) {
		return d, fmt.Errorf("%w: event delivery", domain.ErrNotFound)
	}
	return d, err
}

// ClaimEventDeliveries takes up to limit of subscriber's deliveries that are due, for lease: none
// is taken while an earlier delivery of its booking to the subscriber is not delivered (so each
// booking's events arrive in order), and each taken is not due again until the lease ends, so
// two senders never send it at once. A subscriber without a URL (an agent whose webhook was
// taken away) has none taken: they wait for one.
func (s *Store) ClaimEventDeliveries(ctx context.Context, subscriber string, limit int, lease time.Duration) ([]EventDelivery, error) {
	rows, err := s.pool.Query(ctx, `UPDATE event_deliveries SET next_attempt_at = now() + $3 * interval '1 microsecond'
		WHERE id IN (
			SELECT d.id FROM event_deliveries d JOIN event_subscribers s ON s.id = d.subscriber_id AND s.url <> ''
			WHERE d.subscriber_id = $1 AND d.status = 'pending' AND d.next_attempt_at <= now()
			  AND NOT EXISTS (SELECT 1 FROM event_deliveries e WHERE e.subscriber_id = d.subscriber_id
			                  AND e.booking_id = d.booking_id AND e.id < d.id AND e.status <> 'delivered')
			ORDER BY d.id LIMIT $2 FOR UPDATE OF d SKIP LOCKED)
		RETURNING `+deliveryColumns, subscriber, limit, lease.Microseconds())
	if err != nil {
		return nil, err
	}
	return s.collectDeliveries(ctx, rows)
}

// DueEventSubscribers lists the subscribers with a delivery due now, for the sender to work
// through each on its own.
func (s *Store) DueEventSubscribers(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT subscriber_id FROM event_deliveries
		WHERE status = 'pending' AND next_attempt_at <= now()`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// DeliveryAttempt is what one attempt at a delivery got: the subscriber's HTTP status (0: no
// answer) and the error, none when it was delivered.
type DeliveryAttempt struct {
	Status int
	Err    error
}

// RecordDeliveryAttempt records an attempt: delivered, or due again after backoff, or parked
// once it has failed for retryFor since its retry window began (its next_attempt_at, now plus
// backoff, is then what its retention counts from: PruneEventDeliveries).
func (s *Store) RecordDeliveryAttempt(ctx context.Context, id int64, a DeliveryAttempt, backoff, retryFor time.Duration) error {
	var status *int
	if a.Status != 0 {
		status = &a.Status
	}
	// An agent's notification shows what became of it (GET /api/v1/agent/notifications): once
	// delivered it stays so, and a redelivery that fails shows only as its last error.
	const toNotification = `UPDATE agent_notifications n SET delivered_at = COALESCE(n.delivered_at, d.delivered_at),
		last_error = d.last_error FROM d WHERE n.id = d.agent_notification_id`
	if a.Err == nil {
		_, err := s.pool.Exec(ctx, `WITH d AS (UPDATE event_deliveries SET status = 'delivered', attempts = attempts + 1,
			delivered_at = now(), last_status = $2, last_error = '' WHERE id = $1 AND status = 'pending'
			RETURNING agent_notification_id, delivered_at, last_error) `+toNotification, id, status)
		if err != nil {
			return err
		}
		// The booking's next deliveries, which waited behind this one untried, get a retry window
		// from now: waiting is not failing.
		_, err = s.pool.Exec(ctx, `UPDATE event_deliveries n SET retry_from = now() FROM event_deliveries d
			WHERE d.id = $1 AND n.subscriber_id = d.subscriber_id AND n.booking_id = d.booking_id AND n.id > d.id
			AND n.status = 'pending' AND n.attempts = 0`, id)
		return err
	}
	_, err := s.pool.Exec(ctx, `WITH d AS (UPDATE event_deliveries SET attempts = attempts + 1, last_status = $2,
		last_error = $3, next_attempt_at = now() + $4 * interval '1 microsecond',
		status = CASE WHEN now() - retry_from >= $5 * interval '1 microsecond' THEN 'parked' ELSE 'pending' END
		WHERE id = $1 AND status = 'pending' RETURNING agent_notification_id, delivered_at, last_error) `+toNotification,
		id, status, a.Err.Error(), backoff.Microseconds(), retryFor.Microseconds())
	return err
}

// Redeliver sends a delivery again from now, with a new retry window: a parked one (the
// deliveries of its booking after it wait behind it, as before), or a delivered one a subscriber
// lost (it arrives again with the same event id).
func (s *Store) Redeliver(ctx context.Context, id int64) (EventDelivery, error) {
	d, err := s.oneDelivery(ctx, s.pool.QueryRow(ctx, `UPDATE event_deliveries SET status = 'pending', attempts = 0,
		retry_from = now(), next_attempt_at = now(), delivered_at = NULL
		WHERE id = $1 AND status <> 'pending' RETURNING `+deliveryColumns, id))
	if errors.Is(err, domain.ErrNotFound) {
		if _, getErr := s.EventDelivery(ctx, id); getErr != nil {
			return d, getErr
		}
		return d, fmt.Errorf("%w: delivery %d is still being sent", domain.ErrConflict, id)
	}
	if err != nil {
		return d, err
	}
	// The deliveries that waited behind it get a retry window of their own from now.
	_, err = s.pool.Exec(ctx, `UPDATE event_deliveries SET retry_from = now()
		WHERE subscriber_id = $1 AND booking_id = $2 AND id > $3 AND status = 'pending'`, d.SubscriberID, d.BookingID, d.ID)
	return d, err
}

// EventDelivery returns one delivery.
func (s *Store) EventDelivery(ctx context.Context, id int64) (EventDelivery, error) {
	return s.oneDelivery(ctx, s.pool.QueryRow(ctx, `SELECT `+deliveryColumns+` FROM event_deliveries WHERE id = $1`, id))
}

// EventDeliveries is a subscriber's delivery log, newest first: limit of them before the id
// before (0: from the newest), of one status when status is set.
func (s *Store) EventDeliveries(ctx context.Context, subscriberID, status string, before int64, limit int) ([]EventDelivery, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+deliveryColumns+` FROM event_deliveries
		WHERE subscriber_id = $1 AND ($2 = '' OR status = $2) AND ($3 = 0 OR id < $3)
		ORDER BY id DESC LIMIT $4`, subscriberID, status, before, limit)
	if err != nil {
		return nil, err
	}
	return s.collectDeliveries(ctx, rows)
}
