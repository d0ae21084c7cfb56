package db

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// A booking's guest (domain.Guest) is kept beside it in booking_guests (migration 00054); the
// name a list shows is the one the desk wrote, else the walk-in's, else the rooming list's.

// StoredGuest is a booking's guest as stored, with who last changed it and when.
type StoredGuest struct {
	domain.Guest
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
	UpdatedBy string    `json:"updatedBy,omitempty"`
}

// PutGuest records booking id's guest (the context's actor changed it), replacing what was
// there.
func (s *Store) PutGuest(ctx context.Context, id string, g domain.Guest) (StoredGuest, error) {
	var out StoredGuest
	err := s.pool.QueryRow(ctx, `INSERT INTO booking_guests (booking_id, name, phone, email, guests, arrival_time, notes, updated_by)
			VALUES ($1, $2, $3, $4, NULLIF($5, 0), NULLIF($6, ''), $7, $8)
		ON CONFLICT (booking_id) DO UPDATE SET name = EXCLUDED.name, phone = EXCLUDED.phone, email = EXCLUDED.email,
			guests = EXCLUDED.guests, arrival_time = EXCLUDED.arrival_time, notes = EXCLUDED.notes,
			updated_at = now(), updated_by = EXCLUDED.updated_by
		RETURNING updated_at`, id, g.Name, g.Phone, g.Email, g.Guests, g.ArrivalTime, g.Notes, actorOf(ctx)).Scan(&out.UpdatedAt)
	out.Guest, out.UpdatedBy = g, actorOf(ctx)
	return out, err
}

// GuestOf is booking b's guest: what the desk wrote, else the walk-in's name and phone, else
// the name a rooming list gave it.
func (s *Store) GuestOf(ctx context.Context, b domain.Booking) (StoredGuest, error) {
	var g StoredGuest
	var guests *int
	var arrival *string
	err := s.pool.QueryRow(ctx, `SELECT name, phone, email, guests, arrival_time, notes, updated_at, updated_by
		FROM booking_guests WHERE booking_id = $1`, b.ID).Scan(&g.Name, &g.Phone, &g.Email, &guests, &arrival, &g.Notes,
		&g.UpdatedAt, &g.UpdatedBy)
	if guests != nil {
		g.Guests = *guests
	}
	if arrival != nil {
		g.ArrivalTime = *arrival
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return g, err
	}
	names, err := s.GuestNames(ctx, []string{b.ID})
	g.Name = names[b.ID]
	if strings.HasPrefix(b.CustomerID, domain.WalkInPrefix) {
		g.Phone = strings.TrimPrefix(b.CustomerID, domain.WalkInPrefix)
	}
	return g, err
}

// guestName is the name a booking b is shown by (SQL over bookings b).
const guestName = `COALESCE(NULLIF((SELECT g.name FROM booking_guests g WHERE g.booking_id = b.id), ''),
	NULLIF((SELECT w.name FROM walk_in_customers w WHERE w.customer_id = b.customer_id), ''),
	(SELECT k.name FROM block_guests k WHERE k.booking_id = b.id), '')`

// GuestNames are the names bookings ids are shown by (absent: none known).
func (s *Store) GuestNames(ctx context.Context, ids []string) (map[string]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT b.id, `+guestName+` FROM bookings b WHERE b.id = ANY($1)`, ids)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	defer rows.Close()
	for rows.Next() {
		var id, name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, err
		}
		if name != "" {
			names[id] = name
		}
	}
	return names, rows.Err()
}

// eraseGuests deletes the guests of bookings ids (a customer's erasure).
func eraseGuests(ctx context.Context, tx pgx.Tx, ids []string) (int64, error) {
	tag, err := tx.Exec(ctx, `DELETE FROM booking_guests WHERE booking_id = ANY($1)`, ids)
	if err != nil {
		return 0, fmt.Errorf("erase guests: %w", err)
	}
	return tag.RowsAffected(), nil
}
