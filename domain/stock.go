package domain

import (
	"fmt"
	"time"
)

// A supplier's stock report: the hotel's nights, room type by room type, that a direct_procure
// supplier reports, pulled on a schedule or pushed signed. The suppliers package speaks the
// protocol; the store applies reports; both use these types.

// StockNight is a supplier's stock and rate of a room type on one night. Total nil is unlimited
// ("a price means a room").
type StockNight struct {
	Date     Date   `json:"date"`
	Total    *int   `json:"total"`
	Rate     int64  `json:"rate"`
	Currency string `json:"currency"`
}

// RoomTypeStock is a room type's nights.
type RoomTypeStock struct {
	RoomTypeID string       `json:"roomTypeId"`
	Nights     []StockNight `json:"nights"`
}

// StockReport is a hotel's stock as a supplier reports it, pulled or pushed.
type StockReport struct {
	HotelID string `json:"hotelId"`
	// ReportedAt is when the supplier read the stock it reports (its clock). Reports are applied
	// in this order, night by night: one never overwrites a night a newer report set. Left out,
	// bookflow stands in its own time: for a pull when it asked, for a push when it arrived.
	ReportedAt *time.Time      `json:"reportedAt,omitempty"`
	RoomTypes  []RoomTypeStock `json:"roomTypes"`
}

// Bounds of one report.
const (
	MaxReportRoomTypes = 50
	MaxReportNights    = 2*366 + 1
	maxStockTotal      = 100_000
	// MaxSupplierRate is the highest rate of one night of one room a supplier may report or
	// quote, in minor units.
	MaxSupplierRate = 1_000_000_000
)

// SupplierClockSkew is how far a supplier's clock may be off ours: how old a signed push may be
// (suppliers.DefaultTolerance), and how far ahead of now a report's time may lie.
const SupplierClockSkew = 5 * time.Minute

// Validate checks a report whole, before anything of it is written: ids, unique room types and
// dates, totals and rates in range, one currency per room type.
func (r StockReport) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: stock report: "+format, append([]any{ErrInvalid}, args...)...)
	}
	if err := ValidateID("hotelId", r.HotelID); err != nil {
		return err
	}
	if len(r.RoomTypes) == 0 || len(r.RoomTypes) > MaxReportRoomTypes {
		return bad("between 1 and %d room types", MaxReportRoomTypes)
	}
	seen := map[string]bool{}
	for _, rt := range r.RoomTypes {
		if err := ValidateID("roomTypeId", rt.RoomTypeID); err != nil {
			return err
		}
		if seen[rt.RoomTypeID] {
			return bad("room type %s appears twice", rt.RoomTypeID)
		}
		seen[rt.RoomTypeID] = true
		if len(rt.Nights) > MaxReportNights {
			return bad("at most %d nights per room type", MaxReportNights)
		}
		dates := map[Date]bool{}
		for _, n := range rt.Nights {
			switch {
			case n.Date.IsZero():
				return bad("%s: every night needs its date", rt.RoomTypeID)
			case dates[n.Date]:
				return bad("%s: %s appears twice", rt.RoomTypeID, n.Date)
			case n.Total != nil && (*n.Total < 0 || *n.Total > maxStockTotal):
				return bad("%s on %s: total must be between 0 and %d, or null for unlimited", rt.RoomTypeID, n.Date, maxStockTotal)
			case n.Rate < 1 || n.Rate > MaxSupplierRate:
				// A night without a rate cannot be sold, and a supplier's room is never free.
				return bad("%s on %s: rate must be between 1 and %d minor units", rt.RoomTypeID, n.Date, MaxSupplierRate)
			case n.Currency != rt.Nights[0].Currency:
				return bad("%s: every night is priced in one currency", rt.RoomTypeID)
			}
			if err := ValidateCurrency(n.Currency); err != nil {
				return bad("%s on %s: %v", rt.RoomTypeID, n.Date, err)
			}
			dates[n.Date] = true
		}
	}
	return nil
}

// OrderedAt is the time the report is ordered by: its ReportedAt, or fallback when the supplier
// sent none. A report time more than SupplierClockSkew ahead of now is refused, and one less far
// ahead counts as now: a supplier's clock running ahead would keep every later report that
// bookflow times off its nights.
func (r StockReport) OrderedAt(fallback, now time.Time) (time.Time, error) {
	if r.ReportedAt == nil {
		return fallback, nil
	}
	if r.ReportedAt.After(now.Add(SupplierClockSkew)) {
		return time.Time{}, fmt.Errorf("%w: stock report: reportedAt %s is in the future (more than %s ahead of %s)",
			ErrInvalid, r.ReportedAt.Format(time.RFC3339), SupplierClockSkew, now.UTC().Format(time.RFC3339))
	}
	if r.ReportedAt.After(now) {
		return now, nil
	}
	return *r.ReportedAt, nil
}

// Within checks that a report's nights lie in [from, to): a supplier may not write the past or
// the far future.
func (r StockReport) Within(from, to Date) error {
	for _, rt := range r.RoomTypes {
		for _, n := range rt.Nights {
			if n.Date.Before(from) || !n.Date.Before(to) {
				return fmt.Errorf("%w: stock report: %s on %s is outside [%s, %s)", ErrInvalid, rt.RoomTypeID, n.Date, from, to)
			}
		}
	}
	return nil
}
