package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// OrderLine is one line of a venue order: Quantity units of a resource over the real span
// [Start, End) (a slot, or whole hours or days of equipment).
type OrderLine struct {
	ResourceID string    `json:"resourceId"`
	Start      time.Time `json:"start"`
	End        time.Time `json:"end"`
	Quantity   int       `json:"quantity"`
}

// LinePrice is an order line's price snapshot: the price of one of its units over the span,
// and of the line.
type LinePrice struct {
	OrderLine
	UnitPrice int64 `json:"unitPrice"`
	Total     int64 `json:"total"`
}

// Bounds of one venue order.
const (
	MaxOrderLines = 10
	MaxLineSpan   = 31 * 24 * time.Hour
)

// OrderRequest is what a checkout asks of a venue: every line, all reserved or none.
type OrderRequest struct {
	CustomerID string      `json:"customerId"`
	VenueID    string      `json:"venueId"`
	Lines      []OrderLine `json:"lines"`
}

// Validate checks the order's shape: the times must be whole units on sale, which only the
// inventory can tell.
func (r OrderRequest) Validate(l Limits) error {
	if err := ValidateSubject("customerId", r.CustomerID); err != nil {
		return err
	}
	if err := ValidateID("venueId", r.VenueID); err != nil {
		return err
	}
	return validateLines(r.Lines, l)
}

// validateLines checks an order's lines: 1 to MaxOrderLines, each a resource over a span of
// whole time, with a quantity, and no two taking the same resource at the same time.
func validateLines(lines []OrderLine, l Limits) error {
	if len(lines) == 0 || len(lines) > MaxOrderLines {
		return fmt.Errorf("%w: an order has 1 to %d lines", ErrInvalid, MaxOrderLines)
	}
	for i, line := range lines {
		field := fmt.Sprintf("lines[%d]", i)
		if err := ValidateID(field+".resourceId", line.ResourceID); err != nil {
			return err
		}
		switch {
		case line.Start.IsZero() || line.End.IsZero():
			return fmt.Errorf("%w: %s needs start and end (RFC 3339 with offset)", ErrInvalid, field)
		case !line.End.After(line.Start):
			return fmt.Errorf("%w: %s ends before it starts", ErrInvalid, field)
		case line.End.Sub(line.Start) > MaxLineSpan:
			return fmt.Errorf("%w: %s spans more than %d days", ErrInvalid, field, int(MaxLineSpan.Hours()/24))
		case line.Quantity < 1 || line.Quantity > l.MaxQuantity:
			return fmt.Errorf("%w: %s.quantity must be between 1 and %d", ErrInvalid, field, l.MaxQuantity)
		}
		for j, other := range lines[:i] {
			if other.ResourceID == line.ResourceID && other.Start.Before(line.End) && line.Start.Before(other.End) {
				return fmt.Errorf("%w: lines[%d] and %s take the same resource at the same time: make one line", ErrInvalid, j, field)
			}
		}
	}
	return nil
}

// Equal reports whether l and o are the same line: the same resource, span and quantity.
func (l OrderLine) Equal(o OrderLine) bool {
	return l.ResourceID == o.ResourceID && l.Start.Equal(o.Start) && l.End.Equal(o.End) && l.Quantity == o.Quantity
}

// Fingerprint identifies the order's content, so an idempotency key reused with a different
// order can be told from a plain retry.
func (r OrderRequest) Fingerprint() string {
	parts := []string{"order", r.CustomerID, r.VenueID}
	for _, l := range r.Lines {
		parts = append(parts, l.ResourceID, l.Start.UTC().Format(time.RFC3339Nano), l.End.UTC().Format(time.RFC3339Nano),
			strconv.Itoa(l.Quantity))
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x1f")))
	return hex.EncodeToString(sum[:])
}

// Starts is when the order's first line starts.
func (r OrderRequest) Starts() time.Time {
	var first time.Time
	for i, l := range r.Lines {
		if i == 0 || l.Start.Before(first) {
			first = l.Start
		}
	}
	return first
}

// Ends is when the order's last line ends.
func (r OrderRequest) Ends() time.Time {
	var last time.Time
	for _, l := range r.Lines {
		if l.End.After(last) {
			last = l.End
		}
	}
	return last
}
