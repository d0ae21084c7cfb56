package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// BenchmarkInventoryCheck measures the invariant checker's inventory check against the obvious
// query it replaced (a sum over the bookings for every inventory row), on 200 room types × 400
// nights and 100,000 bookings, most of them confirmed stays in the past:
//
//	go test -run '^$' -bench InventoryCheck -benchtime 3x ./db/
func BenchmarkInventoryCheck(b *testing.B) {
	d := testsuite.NewDatabase(b)
	ctx := context.Background()
	_, err := d.Pool.Exec(ctx, `
		INSERT INTO hotels (id) SELECT 'h' || g FROM generate_series(1, 20) g;
		INSERT INTO resources (kind, hotel_id, code) SELECT 'hotel_room_type', 'h' || h, 'r' || r
			FROM generate_series(1, 20) h, generate_series(1, 10) r;
		INSERT INTO inventory (resource_id, unit_start, total, reserved)
			SELECT r.id, current_date - 200 + n, 1000, 0 FROM resources r, generate_series(0, 399) n;
		INSERT INTO bookings (id, customer_id, created_by, idempotency_key, fingerprint, resource_id, unit_from, unit_to,
				quantity, status, expires_at)
			SELECT 'b' || g, 'c', 'c', 'k' || g, 'f', 1 + g % 200, current_date - 200 + g % 390,
				current_date - 200 + g % 390 + 2, 1, 'CONFIRMED', now() FROM generate_series(1, 100000) g;
		UPDATE inventory i SET reserved = (SELECT COALESCE(sum(quantity), 0) FROM bookings b
			WHERE b.resource_id = i.resource_id AND i.unit_start >= b.unit_from AND i.unit_start < b.unit_to);
		ANALYZE`)
	require.NoError(b, err)
	b.Run("one pass (the checker)", func(b *testing.B) {
		for b.Loop() {
			findings, err := d.Store.InventoryMismatches(ctx)
			require.NoError(b, err)
			require.Empty(b, findings)
		}
	})
	b.Run("baseline: a sum over the bookings per unit", func(b *testing.B) {
		for b.Loop() {
			_, err := d.Pool.Exec(ctx, `SELECT i.resource_id, i.unit_start FROM inventory i
				CROSS JOIN LATERAL (SELECT COALESCE(sum(b.quantity), 0) AS held FROM bookings b
					WHERE b.resource_id = i.resource_id AND b.status IN ('HOLD', 'CONFIRMED', 'COMPLETED')
						AND i.unit_start >= b.unit_from AND i.unit_start < b.unit_to) h
				WHERE i.unit_start >= current_date - 1 AND (i.reserved <> h.held OR i.reserved > i.total)`)
			require.NoError(b, err)
		}
	})
}

// BenchmarkMoneyCheck measures the invariant checker's money checks on 100,000 bookings, each
// with a payment and a third of them with a refund (300,000 ledger entries; a million are
// BenchmarkOverAMillionLedgerEntries'):
//
//	go test -run '^$' -bench MoneyCheck -benchtime 3x ./db/
func BenchmarkMoneyCheck(b *testing.B) {
	d := testsuite.NewDatabase(b)
	ctx := context.Background()
	_, err := d.Pool.Exec(ctx, `
		INSERT INTO hotels (id) VALUES ('h1');
		INSERT INTO resources (kind, hotel_id, code) VALUES ('hotel_room_type', 'h1', 'r1');
		INSERT INTO bookings (id, customer_id, created_by, idempotency_key, fingerprint, resource_id, unit_from, unit_to,
				quantity, status, expires_at, total, currency, paid, payment_id)
			SELECT 'b' || g, 'c', 'c', 'k' || g, 'f', (SELECT id FROM resources), current_date + g % 390,
				current_date + g % 390 + 2, 1, 'CONFIRMED', now(), 20000, 'EUR', 20000 - CASE WHEN g % 3 = 0 THEN 5000 ELSE 0 END,
				'pi_' || g FROM generate_series(1, 100000) g;
		INSERT INTO payments (payment_id, booking_id, amount, currency, status, succeeded_at)
			SELECT 'pi_' || g, 'b' || g, 20000, 'EUR', 'succeeded', now() FROM generate_series(1, 100000) g;
		INSERT INTO refunds (id, booking_id, payment_id, amount, currency, reason, status)
			SELECT 'b' || g || '/goodwill/1', 'b' || g, 'pi_' || g, 5000, 'EUR', 'x', 'succeeded'
			FROM generate_series(3, 100000, 3) g;
		ANALYZE`)
	require.NoError(b, err)
	b.Run("money_mismatch", func(b *testing.B) {
		for b.Loop() {
			findings, err := d.Store.MoneyMismatches(ctx)
			require.NoError(b, err)
			require.Empty(b, findings)
		}
	})
	b.Run("unmatched_payment", func(b *testing.B) {
		for b.Loop() {
			findings, err := d.Store.UnmatchedPayments(ctx, 0)
			require.NoError(b, err)
			require.Empty(b, findings)
		}
	})
}
