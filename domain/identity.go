package domain

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Role is what a caller may do. A token carries one or more.
type Role string

// The roles. Customers act on their own bookings; staff act for the hotels their token names
// (front desk), across hotels on money (finance), or on everything (admin). An agent sells
// through its channel; supplier staff manage the sale rules of their suppliers' hotels.
const (
	RoleCustomer  Role = "customer"
	RoleFrontDesk Role = "front_desk"
	RoleFinance   Role = "finance"
	RoleAdmin     Role = "admin"
	RoleAgent     Role = "agent"
	RoleSupplier  Role = "supplier"
)

// Roles lists every role, in the order the route table of docs/api.md shows them.
var Roles = []Role{RoleCustomer, RoleFrontDesk, RoleFinance, RoleAdmin, RoleAgent, RoleSupplier}

// Known reports whether r is one of bookflow's roles.
func (r Role) Known() bool { return slices.Contains(Roles, r) }

// Principal is an authenticated caller: who they are, what roles they hold and which hotels
// they work for. The API builds it from a verified token; handlers ask it, never a header.
type Principal struct {
	Subject string   // the token's sub: a customer id or a staff member's id
	Roles   []Role   // the known roles the token grants
	Hotels  []string // hotels a front desk works for
	Venues  []string // venues a front desk works for
	// Agent and Channel: the agent an agent's token sells as, and its channel.
	Agent   string
	Channel string
	// Suppliers are the suppliers whose hotels' sale rules supplier staff manage.
	Suppliers []string
}

// SellsThrough returns the channel and agent a sale by the principal goes through: an agent's
// own, empty for everyone else (a direct sale).
func (p Principal) SellsThrough() (channel, agent string) {
	if p.Has(RoleAgent) {
		return p.Channel, p.Agent
	}
	return "", ""
}

// CanManageRules reports whether the principal may change the sale rules of a hotel supplied by
// supplierID (empty: the hotel has no supplier): an admin for every hotel, supplier staff for
// their suppliers' hotels.
func (p Principal) CanManageRules(supplierID string) bool {
	return p.Has(RoleAdmin) || (supplierID != "" && p.Has(RoleSupplier) && slices.Contains(p.Suppliers, supplierID))
}

// Has reports whether the principal holds any of roles.
func (p Principal) Has(roles ...Role) bool {
	return slices.ContainsFunc(roles, func(r Role) bool { return slices.Contains(p.Roles, r) })
}

// CanBook reports whether the principal may book, confirm and cancel a hotel's bookings as
// staff: an admin for every hotel, a front desk for the hotels its token names. Finance never
// widens a front desk's hotels.
func (p Principal) CanBook(hotelID string) bool {
	return p.Has(RoleAdmin) || p.frontDeskOf(hotelID)
}

// CanRead reports whether the principal may read a hotel's bookings as staff: an admin or
// finance every hotel's, a front desk the hotels its token names.
func (p Principal) CanRead(hotelID string) bool {
	return p.Has(RoleAdmin, RoleFinance) || p.frontDeskOf(hotelID)
}

func (p Principal) frontDeskOf(hotelID string) bool {
	return p.Has(RoleFrontDesk) && slices.Contains(p.Hotels, hotelID)
}

// CanBookAt reports whether the principal may book, confirm, check in and cancel a booking as
// staff: CanBook for a hotel's, and the same rule with the token's venues for a venue's.
func (p Principal) CanBookAt(b Booking) bool {
	if b.VenueID != "" {
		return p.Has(RoleAdmin) || p.frontDeskOfVenue(b.VenueID)
	}
	return p.CanBook(b.HotelID)
}

// CanReadAt reports whether the principal may read a booking as staff: CanRead for a hotel's,
// and the same rule with the token's venues for a venue's.
func (p Principal) CanReadAt(b Booking) bool {
	if b.VenueID != "" {
		return p.Has(RoleAdmin, RoleFinance) || p.frontDeskOfVenue(b.VenueID)
	}
	return p.CanRead(b.HotelID)
}

// CanBookVenue reports whether the principal may book at a venue as staff.
func (p Principal) CanBookVenue(venueID string) bool {
	return p.Has(RoleAdmin) || p.frontDeskOfVenue(venueID)
}

func (p Principal) frontDeskOfVenue(venueID string) bool {
	return p.Has(RoleFrontDesk) && slices.Contains(p.Venues, venueID)
}

// IsStaff reports whether the principal holds a staff role.
func (p Principal) IsStaff() bool { return p.Has(RoleFrontDesk, RoleFinance, RoleAdmin) }

// BreakGlassSubject is the subject of a request made with the break-glass ADMIN_TOKEN. No token
// or customer id may take its prefix, so the audit log cannot be made to show it falsely.
const BreakGlassSubject = breakGlassPrefix + "ADMIN_TOKEN"

const breakGlassPrefix = "break-glass:"

// SystemActorPrefix starts the names of what changes a booking without a person asking (the hold
// timer, a payment, the no-show deadline) in its history; no token's subject may take it.
const SystemActorPrefix = "system:"

// ValidateTokenSubject is ValidateSubject for the subject of a token: it may not take the
// walk-in prefix either, or a customer account could read the bookings of the walk-in guest whose
// id it copied.
func ValidateTokenSubject(field, v string) error {
	if err := ValidateSubject(field, v); err != nil {
		return err
	}
	if strings.HasPrefix(v, WalkInPrefix) {
		return fmt.Errorf("%w: %s may not start with %q (walk-in guests' ids)", ErrInvalid, field, WalkInPrefix)
	}
	if strings.HasPrefix(v, SystemActorPrefix) {
		return fmt.Errorf("%w: %s may not start with %q (the booking history's own steps)", ErrInvalid, field, SystemActorPrefix)
	}
	return nil
}

// maxSubjectBytes bounds a subject: identity providers use ids, UUIDs, emails and
// "provider|id" forms, all far shorter.
const maxSubjectBytes = 255

// ValidateSubject checks a customer or staff id as an identity provider issues it: 1-255 bytes
// of UTF-8 text without control or invisible formatting characters (which could make one id
// look like another in the audit log), not starting with the break-glass prefix. Unlike hotel
// ids it never appears in a URL or a workflow id, so it may hold '@', '|' and the like.
func ValidateSubject(field, v string) error {
	hidden := func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }
	ok := v != "" && len(v) <= maxSubjectBytes && utf8.ValidString(v) &&
		!slices.ContainsFunc([]rune(v), hidden) && !strings.HasPrefix(v, breakGlassPrefix)
	if !ok {
		return fmt.Errorf("%w: %s must be 1-%d bytes of visible text, not starting with %q", ErrInvalid, field,
			maxSubjectBytes, breakGlassPrefix)
	}
	return nil
}
