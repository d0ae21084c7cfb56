package db

import (
	"context"
	"math"

	"github.com/bookflow/bookflow/domain"
)

// departureMoney is what an early departure of booking b that ends its stay on checkOut does to
// its money: given, what its policy gives up of the nights not stayed (whatever was paid), and
// refund, what of it goes back. What the payments brought (less reversals and what a lower price
// gave back before: an amendment's refund; a goodwill refund is a gift and makes nothing owed
// again) pays for the nights stayed first, so only what it brought
// beyond them and its extras (the folio: a minibar is not given back with the nights) is
// refunded, never more than the booking keeps; the rest of given was never paid.
// A guest who paid part of the stay, or nothing (a desk deposit, to pay at the hotel), never
// owes for nights not stayed.
func departureMoney(ctx context.Context, q querier, b domain.Booking, checkOut domain.Date) (given, refund int64, err error) {
	given = b.CancellationPolicy.EarlyDepartureRefund(b.Price, checkOut, b.CheckOut, math.MaxInt64)
	var got, extras int64
	if err := q.QueryRow(ctx, `SELECT `+brought+`, `+extrasCharged+` FROM bookings b WHERE b.id = $1`,
		b.ID).Scan(&got, &extras); err != nil {
		return 0, 0, err
	}
	return given, min(given, max(got-(b.Price.Total-given)-extras, 0), max(b.Paid, 0)), nil
}

// PlanDeparture is what checking booking b out so that its stay ends on checkOut would do to its
// money (departureMoney), changing nothing: the check-out's preview.
func (s *Store) PlanDeparture(ctx context.Context, b domain.Booking, checkOut domain.Date) (given, refund int64, err error) {
	return departureMoney(ctx, s.pool, b, checkOut)
}
