package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// A sale rule ended, cut back or eased reopens no units of its own: it lets stays be sold that it
// refused. Its write offers them to the waitlist in its transaction, under the sale lock it holds
// (lockSaleRules), so the offer's hold judges the rules as they now stand and no public hold can
// come between.

// ruleScope is where a rule change may have let stays be sold: a hotel's room type (empty: any)
// on the dates [from, to] (nil: open). Entries of any channel and plan there are tried.
type ruleScope struct {
	hotel, roomType string
	from, to        *time.Time
}

// scopeOf is where rule r applies.
func scopeOf(r domain.SaleRule) ruleScope {
	return ruleScope{hotel: r.HotelID, roomType: r.RoomTypeID, from: dateArg(r.From), to: dateArg(r.To)}
}

// with is the scope covering both s and o (of one hotel).
func (s ruleScope) with(o ruleScope) ruleScope {
	if s.roomType != o.roomType {
		s.roomType = ""
	}
	if s.from != nil && (o.from == nil || o.from.Before(*s.from)) {
		s.from = o.from
	}
	if s.to != nil && (o.to == nil || o.to.After(*s.to)) {
		s.to = o.to
	}
	return s
}

// offerAfterRuleChange offers to the entries waiting within scope what the rule change lets them
// hold. Their spans are the lines freed; the change has locked no unit, so lockForGiveBack takes
// them in the one order (its sale locks are the ones this transaction holds already). A stay's
// departure day counts as met: a closed-to-departure rule ending there refused it.
func offerAfterRuleChange(ctx context.Context, tx pgx.Tx, scope ruleScope) error {
	rows, err := tx.Query(ctx, `SELECT e.resource_id, e.unit_from, e.unit_to FROM waitlist_entries e
			JOIN resources r ON r.id = e.resource_id
		WHERE r.hotel_id = $1 AND ($2 = '' OR r.code = $2) AND e.status = 'waiting'
			AND ($3::timestamp IS NULL OR e.unit_to >= $3) AND ($4::timestamp IS NULL OR e.unit_from <= $4)
		ORDER BY e.id LIMIT `+fmt.Sprint(maxWaitingRead), scope.hotel, scope.roomType, scope.from, scope.to)
	if err != nil {
		return err
	}
	lines, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (line, error) {
		var l line
		err := r.Scan(&l.resourceID, &l.from, &l.to)
		return l, err
	})
	if err != nil || len(lines) == 0 {
		return err
	}
	waiting, err := lockForGiveBack(ctx, tx, lines)
	if err != nil {
		return err
	}
	return offerFreed(ctx, tx, lines, waiting)
}
