package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// CatalogueParams is a synthetic catalogue at the hotel design's scale: Hotels hotels named
// Prefix-N, each with RoomTypes room types of Rooms rooms open for Days nights from From.
type CatalogueParams struct {
	Prefix    string
	Hotels    int
	RoomTypes int
	Days      int
	Rooms     int
	From      domain.Date
	Rate      domain.Money
}

// LoadCatalogue writes a catalogue with COPY, in one transaction, and returns how many inventory
// rows it wrote. It is for load tests and benchmarks: the inventory rows skip the history and
// outbox triggers (nothing is sold yet; a cache reads them through on a miss), which needs a
// superuser, as on a development database.
func (s *Store) LoadCatalogue(ctx context.Context, p CatalogueParams) (int64, error) {
	var rows int64
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
			return fmt.Errorf("bulk loading skips triggers, which needs a superuser: %w", err)
		}
		hotels := make([][]any, p.Hotels)
		for h := range p.Hotels {
			hotels[h] = []any{fmt.Sprintf("%s-%d", p.Prefix, h), fmt.Sprintf("Hotel %d", h), "UTC"}
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"hotels"}, []string{"id", "name", "time_zone"}, pgx.CopyFromRows(hotels)); err != nil {
			return err
		}
		resources := make([][]any, 0, p.Hotels*p.RoomTypes)
		for h := range p.Hotels {
			for r := range p.RoomTypes {
				resources = append(resources, []any{"hotel_room_type", fmt.Sprintf("%s-%d", p.Prefix, h), fmt.Sprintf("rt%d", r)})
			}
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"resources"}, []string{"kind", "hotel_id", "code"}, pgx.CopyFromRows(resources)); err != nil {
			return err
		}
		idRows, err := tx.Query(ctx, `SELECT r.id FROM resources r WHERE r.hotel_id LIKE $1 || '-%' ORDER BY r.id`, p.Prefix)
		if err != nil {
			return err
		}
		ids, err := pgx.CollectRows(idRows, pgx.RowTo[int64])
		if err != nil {
			return err
		}
		i, day := 0, 0
		src := pgx.CopyFromFunc(func() ([]any, error) {
			if i >= len(ids) {
				return nil, nil
			}
			row := []any{ids[i], p.From.AddDays(day).Time(), p.Rooms, p.Rate.Amount, p.Rate.Currency}
			if day++; day == p.Days {
				i, day = i+1, 0
			}
			return row, nil
		})
		rows, err = tx.CopyFrom(ctx, pgx.Identifier{"inventory"}, []string{"resource_id", "unit_start", "total", "rate", "currency"}, src)
		return err
	})
	return rows, err
}

// AnalyzeInventory refreshes the planner's statistics after a bulk load.
func (s *Store) AnalyzeInventory(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	_, err := s.pool.Exec(ctx, `ANALYZE hotels, resources, inventory`)
	return time.Since(start), err
}
