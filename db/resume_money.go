package db

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// keptPayments replays, in the order they happened, what a booking's workflow keeps of its
// payments (the workflow's Kept, which a refund is drawn on): each payment the booking kept at
// what it brought (its first payment, the desk's, an amendment's balance when it was applied), an
// amendment's refund drawn newest first, a staff refund's parts as they were drawn. It is nil
// while the booking kept one payment, as the workflow's is.
func keptPayments(ctx context.Context, q querier, bookingID string) ([]domain.Payment, error) {
	rows, err := q.Query(ctx, `SELECT kind, id, amount, currency, parts FROM (
			-- kept when the booking took it (its ledger's kept entry), as the workflow and the
			-- ledger's draw order it: a card payment recorded before a desk deposit but confirming
			-- the booking after it is the newer
			SELECT 'pay' AS kind, p.payment_id AS id, p.amount, p.currency, NULL::jsonb AS parts,
				COALESCE((SELECT min(k.at) FROM money_ledger k WHERE k.kind = 'kept' AND k.ref = p.payment_id),
					p.succeeded_at, p.created_at) AS at
			FROM payments p JOIN bookings b ON b.id = p.booking_id
			WHERE p.booking_id = $1 AND p.status = 'succeeded' AND (p.payment_id = b.payment_id OR p.method <> 'provider')
			UNION ALL
			SELECT CASE WHEN m.balance_payment_id IS NULL THEN 'draw' ELSE 'pay' END, COALESCE(m.balance_payment_id, ''),
				CASE WHEN m.balance_payment_id IS NULL THEN m.refund ELSE m.difference END, m.currency, NULL, m.decided_at
			FROM booking_amendments m
			WHERE m.booking_id = $1 AND m.status = 'APPLIED' AND (m.balance_payment_id IS NOT NULL OR m.refund > 0)
			UNION ALL
			SELECT 'parts', r.id, r.amount, r.currency, r.parts, r.created_at FROM staff_refunds r WHERE r.booking_id = $1
		) e ORDER BY at, kind DESC`, bookingID)
	if err != nil {
		return nil, err
	}
	type event struct {
		Kind, ID string
		Amount   int64
		Currency string
		Parts    []domain.Payment
	}
	events, err := pgx.CollectRows(rows, pgx.RowToStructByPos[event])
	if err != nil {
		return nil, err
	}
	var kept []domain.Payment
	for _, e := range events {
		switch e.Kind {
		case "pay":
			kept = append(kept, domain.Payment{ID: e.ID, Amount: e.Amount, Currency: e.Currency})
		case "draw":
			domain.DrawRefund(kept, e.Amount)
		case "parts":
			for _, part := range e.Parts {
				for i := range kept {
					if kept[i].ID == part.ID {
						kept[i].Amount -= part.Amount
					}
				}
			}
		}
	}
	if len(kept) <= 1 {
		return nil, nil
	}
	return kept, nil
}
