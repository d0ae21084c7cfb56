package db

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// Supplier is an outside supplier of hotel rooms.
type Supplier struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Mode        string `json:"mode"`     // direct_connect or direct_procure
	Endpoint    string `json:"endpoint"` // its API: stock, quotes, holds
	PushSecret  string `json:"-"`
	HoldMinutes int    `json:"holdMinutes"` // how long its holds last while it confirms
}

// Supplier connection modes.
const (
	ModeDirectConnect = "direct_connect"
	ModeDirectProcure = "direct_procure"
)

// PutSupplier creates or changes a supplier.
func (s *Store) PutSupplier(ctx context.Context, sup Supplier) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO suppliers (id, name, mode, endpoint, push_secret, hold_minutes)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, mode = EXCLUDED.mode, endpoint = EXCLUDED.endpoint,
			push_secret = EXCLUDED.push_secret, hold_minutes = EXCLUDED.hold_minutes`,
		sup.ID, sup.Name, sup.Mode, sup.Endpoint, sup.PushSecret, sup.HoldMinutes)
	return err
}

const supplierColumns = `id, name, mode, endpoint, push_secret, hold_minutes`

func scanSupplier(row pgx.CollectableRow) (Supplier, error) {
	var sup Supplier
	err := row.Scan(&sup.ID, &sup.Name, &sup.Mode, &sup.Endpoint, &sup.PushSecret, &sup.HoldMinutes)
	return sup, err
}

// GetSupplier loads one supplier.
func (s *Store) GetSupplier(ctx context.Context, id string) (Supplier, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+supplierColumns+` FROM suppliers WHERE id = $1`, id)
	if err != nil {
		return Supplier{}, err
	}
	sup, err := pgx.CollectExactlyOneRow(rows, scanSupplier)
	if errors.Is(err, pgx.ErrNoRows) {
		err = fmt.Errorf("%w: no supplier %q", domain.ErrNotFound, id)
	}
	return sup, err
}

// Suppliers lists every supplier.
func (s *Store) Suppliers(ctx context.Context) ([]Supplier, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+supplierColumns+` FROM suppliers ORDER BY id`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanSupplier)
}

// HotelSupplier returns the supplier of a hotel, or an empty one when the hotel sells its own
// rooms.
func (s *Store) HotelSupplier(ctx context.Context, hotelID string) (Supplier, error) {
	rows, err := s.pool.Query(ctx, hotelSupplierSQL, hotelID)
	if err != nil {
		return Supplier{}, err
	}
	return collectSupplier(rows)
}

const hotelSupplierSQL = `SELECT s.id, s.name, s.mode, s.endpoint, s.push_secret, s.hold_minutes FROM hotels h
	JOIN suppliers s ON s.id = h.supplier_id WHERE h.id = $1`

// collectSupplier reads a hotel's supplier, if any (none: zero).
func collectSupplier(rows pgx.Rows) (Supplier, error) {
	sup, err := pgx.CollectExactlyOneRow(rows, scanSupplier)
	if errors.Is(err, pgx.ErrNoRows) {
		return Supplier{}, nil
	}
	return sup, err
}

// SetHotelSupplier makes a hotel's stock come from a supplier (empty: the hotel's own again). A
// hotel not in the catalogue yet is added in timeZone (UTC when empty), as a direct_connect
// supplier's hotel, which has no stock here, must be; an existing hotel keeps its zone, and
// naming another is a conflict.
func (s *Store) SetHotelSupplier(ctx context.Context, hotelID, supplierID, timeZone string) error {
	tz := timeZone
	if tz == "" {
		tz = "UTC"
	}
	// The update applies only when the zone matches (or none was named), so a refused change
	// changes nothing.
	tag, err := s.pool.Exec(ctx, `INSERT INTO hotels (id, time_zone, supplier_id) VALUES ($1, $3, $2)
		ON CONFLICT (id) DO UPDATE SET supplier_id = EXCLUDED.supplier_id
		WHERE $4 = '' OR hotels.time_zone = EXCLUDED.time_zone`,
		hotelID, nullable(supplierID), tz, timeZone)
	switch {
	case pgCode(err) == codeForeignKeyViolation:
		return fmt.Errorf("%w: no supplier %q", domain.ErrNotFound, supplierID)
	case err == nil && tag.RowsAffected() == 0:
		return fmt.Errorf("%w: hotel %s already exists in another time zone than %s", domain.ErrConflict, hotelID, timeZone)
	case err == nil && supplierID != "":
		// Its supplier confirms every stay after the hold, which no offer can wait for: its
		// waitlists can no longer be served (docs/waitlists.md).
		_, err = s.pool.Exec(ctx, `UPDATE waitlist_entries e SET status = 'closed', closed_reason = 'window_closed', closed_at = now()
			FROM resources r WHERE r.id = e.resource_id AND r.hotel_id = $1 AND e.status = 'waiting'`, hotelID)
	}
	return err
}

// Channel is a sales channel; Agent one of its agents.
type Channel struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Agent sells through one channel; WebhookURL, when set, receives its notifications signed with
// WebhookSecret.
type Agent struct {
	ID            string `json:"id"`
	ChannelID     string `json:"channelId"`
	Name          string `json:"name"`
	WebhookURL    string `json:"webhookUrl,omitempty"`
	WebhookSecret string `json:"-"`
}

// PutChannel creates or renames a channel.
func (s *Store) PutChannel(ctx context.Context, c Channel) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO channels (id, name) VALUES ($1, $2)
		ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name`, c.ID, c.Name)
	return err
}

// Channels lists every channel.
func (s *Store) Channels(ctx context.Context) ([]Channel, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, name FROM channels ORDER BY id`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[Channel])
}

// PutAgent creates or changes an agent; its channel must exist, and an agent never moves to
// another channel (its bookings and rules belong to the first).
func (s *Store) PutAgent(ctx context.Context, a Agent) error {
	// The update applies only while the channel matches, so a refused change changes nothing.
	tag, err := s.pool.Exec(ctx, `INSERT INTO agents (id, channel_id, name, webhook_url, webhook_secret)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, webhook_url = EXCLUDED.webhook_url,
			webhook_secret = EXCLUDED.webhook_secret
		WHERE agents.channel_id = EXCLUDED.channel_id`, a.ID, a.ChannelID, a.Name, a.WebhookURL, a.WebhookSecret)
	switch {
	case pgCode(err) == codeForeignKeyViolation:
		return fmt.Errorf("%w: no channel %q", domain.ErrNotFound, a.ChannelID)
	case err == nil && tag.RowsAffected() == 0:
		return fmt.Errorf("%w: agent %s sells through another channel than %s", domain.ErrConflict, a.ID, a.ChannelID)
	}
	return err
}

const agentColumns = `id, channel_id, name, webhook_url, webhook_secret`

// Agents lists every agent.
func (s *Store) Agents(ctx context.Context) ([]Agent, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+agentColumns+` FROM agents ORDER BY id`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[Agent])
}

// GetAgent loads one agent.
func (s *Store) GetAgent(ctx context.Context, id string) (Agent, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+agentColumns+` FROM agents WHERE id = $1`, id)
	if err != nil {
		return Agent{}, err
	}
	a, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByPos[Agent])
	if errors.Is(err, pgx.ErrNoRows) {
		err = fmt.Errorf("%w: no agent %q", domain.ErrNotFound, id)
	}
	return a, err
}

// ChannelOwes is what booking id's sales channel owes for it by the money ledger
// (ledger_channel_owes): its sale on the channel's account less what its cancel and amendments
// moved back; 0 for a booking not sold on account.
func (s *Store) ChannelOwes(ctx context.Context, id string) (int64, error) {
	var owes int64
	err := s.pool.QueryRow(ctx, `SELECT ledger_channel_owes($1)`, id).Scan(&owes)
	return owes, err
}
