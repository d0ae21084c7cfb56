package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// AuditEntry is one staff action: who (the token's subject), what, on which booking, and why.
type AuditEntry struct {
	ID        int64          `json:"id"`
	At        time.Time      `json:"at"`
	Actor     string         `json:"actor"`
	Action    string         `json:"action"`
	BookingID string         `json:"bookingId,omitempty"`
	Reason    string         `json:"reason"`
	Details   map[string]any `json:"details,omitempty"`
}

// Audit writes a staff action to the audit log.
func (s *Store) Audit(ctx context.Context, e AuditEntry) error {
	return insertAudit(ctx, s.pool, e)
}

// insertAudit writes an audit entry through q: a transaction writes it with what it audits.
func insertAudit(ctx context.Context, q querier, e AuditEntry) error {
	_, err := q.Exec(ctx, `INSERT INTO audit_log (actor, action, booking_id, reason, details) VALUES ($1, $2, NULLIF($3, ''), $4, $5)`,
		e.Actor, e.Action, e.BookingID, e.Reason, e.Details)
	return err
}

// AuditLog returns a booking's audit entries, oldest first.
func (s *Store) AuditLog(ctx context.Context, bookingID string) ([]AuditEntry, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+auditColumns+` FROM audit_log WHERE booking_id = $1 ORDER BY id`, bookingID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanAuditEntry)
}

// RecentAudit returns up to limit audit entries older than entry beforeID (every entry when
// beforeID is 0), newest first.
func (s *Store) RecentAudit(ctx context.Context, beforeID int64, limit int) ([]AuditEntry, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+auditColumns+` FROM audit_log
		WHERE $1 = 0 OR id < $1 ORDER BY id DESC LIMIT $2`, beforeID, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanAuditEntry)
}

const auditColumns = `id, at, actor, action, COALESCE(booking_id, ''), reason, details`

func scanAuditEntry(r pgx.CollectableRow) (AuditEntry, error) {
	var e AuditEntry
	err := r.Scan(&e.ID, &e.At, &e.Actor, &e.Action, &e.BookingID, &e.Reason, &e.Details)
	return e, err
}
