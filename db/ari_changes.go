package db

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// ErrCursorGone: the changes after a feed cursor were partly deleted by the retention; the
// caller exports again (ARIExport) and follows the feed from the export's cursor.
var ErrCursorGone = errors.New("cursor gone")

// ariSettled is the feed's horizon: the oldest transaction still in flight anywhere in the
// cluster. Every change written by a transaction below it is committed (or rolled back) and
// visible; one above may still commit, with any id. The feed serves changes in (xid, id) order
// below the horizon only, so no change can later commit behind a cursor already handed out. The
// concurrency test's control replaces it by one that serves every visible change.
var ariSettled = `pg_snapshot_xmin(pg_current_snapshot())::text`

// feedPosition is a place in the feed: a change's transaction and id. A cursor names the last
// change seen; (xid, 0) is before every change of transaction xid.
type feedPosition struct {
	xid string // xid8 as text: up to 2^64
	id  int64
}

func (p feedPosition) String() string { return p.xid + "-" + strconv.FormatInt(p.id, 10) }

func parseFeedPosition(s string) (feedPosition, error) {
	x, i, ok := strings.Cut(s, "-")
	_, errX := strconv.ParseUint(x, 10, 64)
	id, errI := strconv.ParseInt(i, 10, 64)
	if !ok || errX != nil || errI != nil || id < 0 || len(x) > 1 && x[0] == '0' {
		return feedPosition{}, fmt.Errorf("%w: since must be a cursor from the ARI export or a feed page's next, not %q",
			domain.ErrInvalid, s)
	}
	return feedPosition{xid: x, id: id}, nil
}

// ARIChange is one entry of the feed: a write that changed what the ARI export answers for a room
// type (none: every one) and plan (none: every plan) over dates [from, to) (none: open).
type ARIChange struct {
	Cursor     string       `json:"cursor"`
	Kind       string       `json:"kind"` // availability, rate, restriction or plan
	RoomTypeID string       `json:"roomTypeId,omitempty"`
	RatePlan   string       `json:"ratePlan,omitempty"`
	From       *domain.Date `json:"from,omitempty"`
	To         *domain.Date `json:"to,omitempty"`
	At         time.Time    `json:"at"`
}

// ARIChangePage is a page of the feed. Next is the cursor to ask for next (since when the page is
// empty); More says the page was full, so more may follow at once.
type ARIChangePage struct {
	HotelID string      `json:"hotelId"`
	Since   string      `json:"since"`
	Next    string      `json:"next"`
	More    bool        `json:"more"`
	Changes []ARIChange `json:"changes"`
}

// ARIChanges answers up to limit changes of a hotel's ARI after the cursor since, in feed order
// (see ariSettled). A cursor the retention has passed (a change after it was deleted) is
// ErrCursorGone; an unknown hotel ErrNotFound; a malformed cursor ErrInvalid.
func (s *Store) ARIChanges(ctx context.Context, hotelID, since string, limit int) (ARIChangePage, error) {
	page := ARIChangePage{HotelID: hotelID, Since: since, Next: since, Changes: []ARIChange{}}
	from, err := parseFeedPosition(since)
	if err != nil {
		return page, err
	}
	err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			var hotel, gone, future bool
			// A cursor past every transaction this database has begun (pg_snapshot_xmax) is not
			// one of its own: it came before a restore into another cluster, or from a primary
			// whose last transactions a failover lost. Served as it is, it would sort after every
			// new change and skip them all: it is gone. Pruned positions past it are ignored alike.
			err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM hotels WHERE id = $1),
				EXISTS (SELECT 1 FROM ari_changes_pruned WHERE hotel_id = $1 AND (xid, id) > ($2::text::xid8, $3)
					AND xid < pg_snapshot_xmax(pg_current_snapshot())),
				$2::text::xid8 > pg_snapshot_xmax(pg_current_snapshot())`,
				hotelID, from.xid, from.id).Scan(&hotel, &gone, &future)
			switch {
			case err != nil:
				return err
			case !hotel:
				return fmt.Errorf("%w: no hotel %q", domain.ErrNotFound, hotelID)
			case future:
				return fmt.Errorf("%w: cursor %s is past every transaction of this database (restored, or failed "+
					"over?): export again (GET /admin/hotels/%s/ari) and follow the feed from its cursor", ErrCursorGone,
					since, hotelID)
			case gone:
				return fmt.Errorf("%w: changes after cursor %s are older than the feed keeps: export again "+
					"(GET /admin/hotels/%s/ari) and follow the feed from its cursor", ErrCursorGone, since, hotelID)
			}
			rows, err := tx.Query(ctx, `SELECT xid::text, id, kind, COALESCE(room_type, ''), COALESCE(rate_plan, ''),
					from_date, to_date, created_at
				FROM ari_changes WHERE hotel_id = $1 AND (xid, id) > ($2::text::xid8, $3)
					AND xid < (SELECT `+ariSettled+`)::xid8
				ORDER BY xid, id LIMIT $4`, hotelID, from.xid, from.id, limit)
			if err != nil {
				return err
			}
			var pos feedPosition
			var c ARIChange
			var fromDate, toDate *time.Time
			_, err = pgx.ForEachRow(rows, []any{&pos.xid, &pos.id, &c.Kind, &c.RoomTypeID, &c.RatePlan, &fromDate, &toDate,
				&c.At}, func() error {
				c.Cursor, c.From, c.To = pos.String(), dateOrNil(fromDate), dateOrNil(toDate)
				page.Changes = append(page.Changes, c)
				page.Next = c.Cursor
				return nil
			})
			return err
		})
	page.More = err == nil && len(page.Changes) == limit
	return page, err
}

func dateOrNil(t *time.Time) *domain.Date {
	if t == nil {
		return nil
	}
	d := domain.DateOf(*t, time.UTC)
	return &d
}

// PruneARIChanges deletes up to batch feed entries written more than retention ago, and already
// below the feed's horizon, and says how many it deleted (the caller repeats while a whole batch
// goes). Each hotel's newest deleted
// position is kept, so a cursor before it answers ErrCursorGone rather than skip what went.
func (s *Store) PruneARIChanges(ctx context.Context, retention time.Duration, batch int) (int64, error) {
	var deleted int64
	err := s.pool.QueryRow(ctx, `WITH gone AS (
			DELETE FROM ari_changes WHERE id IN (SELECT id FROM ari_changes
				WHERE created_at < now() - $1 * interval '1 microsecond'
					-- never what the feed has not served yet: a transaction open for longer than the
					-- retention holds the horizon, and the changes after it wait, kept
					AND xid < pg_snapshot_xmin(pg_current_snapshot())
				ORDER BY created_at LIMIT $2)
			RETURNING hotel_id, xid, id),
		newest AS (SELECT DISTINCT ON (hotel_id) hotel_id, xid, id FROM gone ORDER BY hotel_id, xid DESC, id DESC),
		kept AS (INSERT INTO ari_changes_pruned AS p (hotel_id, xid, id) SELECT hotel_id, xid, id FROM newest
			ON CONFLICT (hotel_id) DO UPDATE SET xid = EXCLUDED.xid, id = EXCLUDED.id
				WHERE (EXCLUDED.xid, EXCLUDED.id) > (p.xid, p.id))
		SELECT count(*) FROM gone`, retention.Microseconds(), batch).Scan(&deleted)
	return deleted, err
}
