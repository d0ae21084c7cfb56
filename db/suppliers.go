package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// ReserveAtSupplier creates the booking of a stay at a direct_connect supplier's hotel, which
// keeps no stock here: the supplier's quote (nil: it has no room) is the price, and the sale
// rules are judged as for any stay. The booking takes no local stock (supplier_held); the
// supplier holds the rooms once it confirms. A retry finds the booking and changes nothing.
func (s *Store) ReserveAtSupplier(ctx context.Context, p ReserveParams, quote *domain.Price) (domain.Booking, error) {
	req := p.Request
	var booking domain.Booking
	err := s.inBookingTx(ctx, p.BookingID, func(tx pgx.Tx) error {
		if err := lockCustomerHolds(ctx, tx, req.CustomerID, p.MaxActiveHolds); err != nil {
			return err
		}
		_, inserted, err := insertBooking(ctx, tx, p, domain.StatusHold)
		if err != nil {
			return err
		}
		if !inserted {
			booking, err = getBooking(ctx, tx, p.BookingID)
			if err == nil && booking.Fingerprint != req.Fingerprint() {
				err = fmt.Errorf("%w: booking %s", domain.ErrIdempotencyMismatch, p.BookingID)
			}
			return err
		}
		if err := checkHoldLimit(ctx, tx, req.CustomerID, p.BookingID, p.MaxActiveHolds); err != nil {
			return err
		}
		v, err := judgeSale(ctx, tx, domain.SaleContext{HotelID: req.HotelID, RoomTypeID: req.RoomTypeID,
			ChannelID: p.ChannelID, AgentID: p.AgentID, Stay: req.Stay})
		if err != nil {
			return err
		}
		switch {
		case !v.Allowed:
			_, err = tx.Exec(ctx, `UPDATE bookings SET status = 'REJECTED', refusal = $2, supplier_held = true WHERE id = $1`,
				p.BookingID, v.Refusal.Named())
		case quote == nil:
			_, err = tx.Exec(ctx, `UPDATE bookings SET status = 'REJECTED', refusal = 'the supplier has no room for the stay',
				supplier_held = true WHERE id = $1`, p.BookingID)
		default:
			price, off := *quote, int64(0)
			if v.Discount != nil {
				price, off = v.Discount.Apply(price, req.Quantity)
			}
			_, err = tx.Exec(ctx, `UPDATE bookings SET currency = $2, total = $3, nightly_rates = $4, discount = $5,
				supplier_held = true WHERE id = $1`, p.BookingID, price.Currency, price.Total, price.Nights, off)
		}
		if err != nil {
			return err
		}
		booking, err = getBooking(ctx, tx, p.BookingID)
		return err
	})
	return booking, err
}

// SupplierHolds reports whether a direct_connect supplier holds the booking's rooms (it took no
// stock here).
func (s *Store) SupplierHolds(ctx context.Context, bookingID string) (bool, error) {
	var held bool
	err := s.pool.QueryRow(ctx, `SELECT supplier_held FROM bookings WHERE id = $1`, bookingID).Scan(&held)
	if errors.Is(err, pgx.ErrNoRows) {
		err = fmt.Errorf("%w: no booking %s", domain.ErrNotFound, bookingID)
	}
	return held, err
}

// RecordSupplierConfirmation keeps the supplier's confirmation number on the booking.
func (s *Store) RecordSupplierConfirmation(ctx context.Context, bookingID, ref string) (domain.Booking, error) {
	var b domain.Booking
	err := s.inBookingTx(ctx, bookingID, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE bookings SET supplier_ref = $2, updated_at = now() WHERE id = $1`, bookingID, ref); err != nil {
			return err
		}
		var err error
		b, err = getBooking(ctx, tx, bookingID)
		return err
	})
	return b, err
}

// AgentNotification is what an agent is told about one of its bookings.
type AgentNotification struct {
	ID          int64      `json:"id"`
	AgentID     string     `json:"agentId"`
	BookingID   string     `json:"bookingId"`
	Event       string     `json:"event"`
	Detail      string     `json:"detail"`
	CreatedAt   time.Time  `json:"createdAt"`
	DeliveredAt *time.Time `json:"deliveredAt,omitempty"`
	LastError   string     `json:"lastError,omitempty"`
	// AmendmentID names the amendment an "amended" notification is about.
	AmendmentID *int64 `json:"amendmentId,omitempty"`
}

// RecordAgentNotification stores a notification once per booking and event (and amendment), and returns it as
// stored (the first one when it was already there).
func (s *Store) RecordAgentNotification(ctx context.Context, n AgentNotification) (AgentNotification, error) {
	rows, err := s.pool.Query(ctx, `WITH ins AS (
			INSERT INTO agent_notifications (agent_id, booking_id, event, detail, amendment_id) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT ON CONSTRAINT agent_notifications_once DO NOTHING RETURNING *)
		SELECT id, agent_id, booking_id, event, detail, created_at, delivered_at, last_error, amendment_id FROM ins
		UNION ALL SELECT id, agent_id, booking_id, event, detail, created_at, delivered_at, last_error, amendment_id
			FROM agent_notifications WHERE booking_id = $2 AND event = $3 AND amendment_id IS NOT DISTINCT FROM $5`,
		n.AgentID, n.BookingID, n.Event, n.Detail, n.AmendmentID)
	if err != nil {
		return n, err
	}
	found, err := pgx.CollectRows(rows, pgx.RowToStructByPos[AgentNotification])
	if err != nil || len(found) == 0 {
		return n, fmt.Errorf("record notification: %w", err)
	}
	return found[0], nil
}

// AgentNotifications lists an agent's notifications, newest first.
func (s *Store) AgentNotifications(ctx context.Context, agentID string, limit int) ([]AgentNotification, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, agent_id, booking_id, event, detail, created_at, delivered_at, last_error,
			amendment_id
		FROM agent_notifications WHERE agent_id = $1 ORDER BY id DESC LIMIT $2`, agentID, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[AgentNotification])
}
