package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// A late arrival (migration 00059) is the desk's note that a venue booking's guest came after it
// began: kept beside the booking, never a change of its status or its workflow.

// LateArrival is when a booking's guest arrived, how many minutes after it began, and who
// recorded it when.
type LateArrival struct {
	BookingID   string    `json:"bookingId"`
	ArrivedAt   time.Time `json:"arrivedAt"`
	MinutesLate int       `json:"minutesLate"`
	RecordedAt  time.Time `json:"recordedAt"`
	RecordedBy  string    `json:"recordedBy"`
}

// RecordLateArrival records that booking b's guest arrived at arrived (the context's actor saw
// it), replacing an earlier record. The booking must be a venue order still holding its units
// (held, confirmed or checked in), and arrived at least a minute after its first line began:
// otherwise domain.ErrConflict or domain.ErrInvalid, and nothing is written.
func (s *Store) RecordLateArrival(ctx context.Context, b domain.Booking, arrived time.Time) (LateArrival, error) {
	out := LateArrival{BookingID: b.ID, ArrivedAt: arrived.UTC(), RecordedBy: actorOf(ctx)}
	if b.VenueID == "" || len(b.Price.Lines) == 0 {
		return out, fmt.Errorf("%w: only a venue booking's late arrival is recorded", domain.ErrConflict)
	}
	out.MinutesLate = int(arrived.Sub(b.OrderStarts()) / time.Minute)
	if out.MinutesLate < 1 {
		return out, fmt.Errorf("%w: arrivedAt is not after the booking began (%s)", domain.ErrInvalid,
			b.OrderStarts().Format(time.RFC3339))
	}
	// The status is checked in the statement, so a booking cancelled meanwhile is not noted.
	err := s.pool.QueryRow(ctx, `INSERT INTO booking_late_arrivals (booking_id, arrived_at, minutes_late, recorded_by)
			SELECT id, $2, $3, $4 FROM bookings WHERE id = $1 AND status IN ('HOLD', 'CONFIRMED', 'COMPLETED')
		ON CONFLICT (booking_id) DO UPDATE SET arrived_at = EXCLUDED.arrived_at, minutes_late = EXCLUDED.minutes_late,
			recorded_at = now(), recorded_by = EXCLUDED.recorded_by
		RETURNING recorded_at`, b.ID, out.ArrivedAt, out.MinutesLate, out.RecordedBy).Scan(&out.RecordedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return out, fmt.Errorf("%w: booking %s is %s: only a held, confirmed or checked-in booking's late arrival "+
			"is recorded", domain.ErrConflict, b.ID, b.Status)
	}
	return out, err
}

// LateArrivals are the late arrivals of bookings ids, by booking id (absent: none recorded).
func (s *Store) LateArrivals(ctx context.Context, ids []string) (map[string]LateArrival, error) {
	rows, err := s.pool.Query(ctx, `SELECT booking_id, arrived_at, minutes_late, recorded_at, recorded_by
		FROM booking_late_arrivals WHERE booking_id = ANY($1)`, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]LateArrival{}
	for rows.Next() {
		var l LateArrival
		if err := rows.Scan(&l.BookingID, &l.ArrivedAt, &l.MinutesLate, &l.RecordedAt, &l.RecordedBy); err != nil {
			return nil, err
		}
		out[l.BookingID] = l
	}
	return out, rows.Err()
}
