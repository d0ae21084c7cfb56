package db

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// MigrateTo applies the migrations up to version and nothing else (not db/functions).
func MigrateTo(ctx context.Context, pool *pgxpool.Pool, version int64) error {
	return migrateTo(ctx, pool, version)
}

// MigrateToForTodaysStore is MigrateTo, then the columns this release's store reads that later
// migrations add, as those migrations add them (each with IF NOT EXISTS): the rows of an old
// database written by today's store, for tests of an upgrade.
func MigrateToForTodaysStore(ctx context.Context, pool *pgxpool.Pool, version int64) error {
	if err := migrateTo(ctx, pool, version); err != nil {
		return err
	}
	_, err := pool.Exec(ctx, `ALTER TABLE sale_rules ADD COLUMN IF NOT EXISTS rate_plan text; -- 00043
		ALTER TABLE bookings ADD COLUMN IF NOT EXISTS rate_plan text NOT NULL DEFAULT 'BAR',
			ADD COLUMN IF NOT EXISTS plan_terms jsonb; -- 00045
		ALTER TABLE bookings ADD COLUMN IF NOT EXISTS balance_due_at timestamptz,
			ADD COLUMN IF NOT EXISTS balance_payment_id text; -- 00047
		ALTER TABLE bookings ADD COLUMN IF NOT EXISTS card_guarantee jsonb,
			ADD COLUMN IF NOT EXISTS guarantee_fee jsonb -- 00049`)
	if err != nil {
		return err
	}
	// Every give-back reads the waitlist (00050) and the blocks (00051), every hotel read its
	// country (00052), every booking read its check-out (00053), an erasure its guests (00054), a
	// booking's change its rooms (00055) and its money its extras (00056, with the function that
	// sums them, once the ledger and its commands exist: 00034), a room its days out of order
	// (00057), every desk payment its cashier's closed cash-ups (00058), a staff list its late
	// arrivals (00059) and a staff refund its method (00061), whether it was asked away from the
	// desk (00062) and its bank transfers (00063): those whole, each of which may run twice.
	for _, m := range []struct {
		version int64
		file    string
	}{{50, "00050_waitlists.sql"}, {51, "00051_group_blocks.sql"}, {52, "00052_site_country.sql"},
		{53, "00053_check_out.sql"}, {54, "00054_booking_guests.sql"}, {55, "00055_rooms.sql"},
		{56, "00056_folio_charges.sql"}, {57, "00057_rooms_out_of_order.sql"}, {58, "00058_cash_ups.sql"},
		{59, "00059_late_arrivals.sql"}, {61, "00061_refund_methods.sql"}, {62, "00062_refunds_away_from_desk.sql"},
		{63, "00063_refund_by_bank_transfer.sql"}} {
		if version >= m.version || (m.version >= 56 && version < 34) {
			continue
		}
		text, err := migrations.ReadFile("migrations/" + m.file)
		if err != nil {
			return err
		}
		up, _, _ := strings.Cut(string(text), "-- +goose Down")
		if _, err := pool.Exec(ctx, up); err != nil {
			return err
		}
	}
	if version < 56 && version >= 34 {
		text, err := functions.ReadFile("functions/ledger_booking_extras.sql")
		if err != nil {
			return err
		}
		_, err = pool.Exec(ctx, string(text))
		return err
	}
	return nil
}

// FunctionFiles is the text of each file of db/functions, by file name.
func FunctionFiles() (map[string]string, error) {
	files, err := functionFiles()
	out := map[string]string{}
	for _, f := range files {
		out[f.name] = f.sql
	}
	return out, err
}
