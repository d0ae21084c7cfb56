package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// Stock alerts are what operators are asked to look at: a night of a room type that fell below
// its low-stock threshold, or a supplier reporting fewer rooms than are sold here. One alert per
// kind, room type and night stays open until it is resolved.

// Alert kinds.
const (
	AlertLowStock     = "low_stock"
	AlertSyncConflict = "sync_conflict"
)

// StockAlert is one alert.
type StockAlert struct {
	ID         int64       `json:"id"`
	Kind       string      `json:"kind"`
	HotelID    string      `json:"hotelId"`
	RoomTypeID string      `json:"roomTypeId"`
	Night      domain.Date `json:"night"`
	Detail     string      `json:"detail"`
	CreatedAt  time.Time   `json:"createdAt"`
	ResolvedAt *time.Time  `json:"resolvedAt,omitempty"`
}

// SetStockAlertThresholds raises a low-stock alert whenever a sale leaves fewer than threshold
// rooms of each room type of each hotel on a night; 0 removes the thresholds. All or none: a
// hotel without one of the room types is ErrNotFound and changes nothing.
func (s *Store) SetStockAlertThresholds(ctx context.Context, hotels, roomTypes []string, threshold int) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		for _, h := range hotels {
			for _, rt := range roomTypes {
				var exists bool
				if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM resources WHERE hotel_id = $1 AND code = $2)`,
					h, rt).Scan(&exists); err != nil {
					return err
				}
				if !exists {
					return fmt.Errorf("%w: hotel %s has no room type %q", domain.ErrNotFound, h, rt)
				}
				var err error
				if threshold == 0 {
					_, err = tx.Exec(ctx, `DELETE FROM stock_alert_thresholds WHERE hotel_id = $1 AND room_type = $2`, h, rt)
				} else {
					_, err = tx.Exec(ctx, `INSERT INTO stock_alert_thresholds (hotel_id, room_type, threshold) VALUES ($1, $2, $3)
						ON CONFLICT (hotel_id, room_type) DO UPDATE SET threshold = EXCLUDED.threshold`, h, rt, threshold)
				}
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// StockAlertThresholds lists a hotel's thresholds by room type.
func (s *Store) StockAlertThresholds(ctx context.Context, hotelID string) (map[string]int, error) {
	rows, err := s.pool.Query(ctx, `SELECT room_type, threshold FROM stock_alert_thresholds WHERE hotel_id = $1`, hotelID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var rt string
		var t int
		if err := rows.Scan(&rt, &t); err != nil {
			return nil, err
		}
		out[rt] = t
	}
	return out, rows.Err()
}

// raiseLowStock opens a low-stock alert for every night of the stay of a watched room type that
// has fewer rooms left than its threshold, in the sale's transaction.
func raiseLowStock(ctx context.Context, tx pgx.Tx, resourceID int64, stay domain.Stay) error {
	_, err := tx.Exec(ctx, `INSERT INTO stock_alerts (kind, hotel_id, room_type, night, detail)
		SELECT 'low_stock', r.hotel_id, r.code, i.unit_start::date,
			format('%s rooms left, below the threshold of %s', `+unitsLeft+`, t.threshold)
		FROM resources r JOIN stock_alert_thresholds t ON t.hotel_id = r.hotel_id AND t.room_type = r.code
		JOIN inventory i ON i.resource_id = r.id AND i.unit_start >= $2 AND i.unit_start < $3
		WHERE r.id = $1 AND i.total IS NOT NULL AND `+unitsLeft+` < t.threshold
		ON CONFLICT DO NOTHING`, resourceID, stay.CheckIn.Time(), stay.CheckOut.Time())
	return err
}

// raiseAlert opens an alert unless one of its kind is open for the night.
func raiseAlert(ctx context.Context, q querier, a StockAlert) error {
	_, err := q.Exec(ctx, `INSERT INTO stock_alerts (kind, hotel_id, room_type, night, detail) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT DO NOTHING`, a.Kind, a.HotelID, a.RoomTypeID, a.Night.Time(), a.Detail)
	return err
}

// StockAlerts lists the open alerts (all of them with resolved), newest first.
func (s *Store) StockAlerts(ctx context.Context, hotelID string, resolved bool, limit int) ([]StockAlert, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, kind, hotel_id, room_type, night, detail, created_at, resolved_at
		FROM stock_alerts WHERE ($1 = '' OR hotel_id = $1) AND ($2 OR resolved_at IS NULL)
		ORDER BY id DESC LIMIT $3`, hotelID, resolved, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (StockAlert, error) {
		var a StockAlert
		var night time.Time
		err := r.Scan(&a.ID, &a.Kind, &a.HotelID, &a.RoomTypeID, &night, &a.Detail, &a.CreatedAt, &a.ResolvedAt)
		a.Night = domain.DateOf(night, time.UTC)
		return a, err
	})
}

// ResolveStockAlert closes an open alert.
func (s *Store) ResolveStockAlert(ctx context.Context, id int64) error {
	tag, err := s.pool.Exec(ctx, `UPDATE stock_alerts SET resolved_at = now() WHERE id = $1 AND resolved_at IS NULL`, id)
	if err == nil && tag.RowsAffected() == 0 {
		err = fmt.Errorf("%w: no open stock alert %d", domain.ErrNotFound, id)
	}
	return err
}
