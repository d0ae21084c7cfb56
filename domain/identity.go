package domain

import (
	"fmt"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Role is what a caller may do. A token carries one or more.
type Role string

// The roles. Customers act on their own bookings; staff act for the hotels their token names
// (front desk), across hotels on money (finance), or on everything (admin).
const (
	RoleCustomer  Role = "customer"
	RoleFrontDesk Role = "front_desk"
	RoleFinance   Role = "finance"
	RoleAdmin     Role = "admin"
)

// Roles lists every role, in the order the README's route table shows them.
var Roles = []Role{RoleCustomer, RoleFrontDesk, RoleFinance, RoleAdmin}

// Known reports whether r is one of bookflow's roles.
func (r Role) Known() bool { return slices.Contains(Roles, r) }

// Principal is an authenticated caller: who they are, what roles they hold and which hotels
// they work for. The API builds it from a verified token; handlers ask it, never a header.
type Principal struct {
	Subject string   // the token's sub: a customer id or a staff member's id
	Roles   []Role   // the known roles the token grants
	Hotels  []string // hotels a front desk works for
}

// Has reports whether the principal holds any of roles.
func (p Principal) Has(roles ...Role) bool {
	return slices.ContainsFunc(roles, func(r Role) bool { return slices.Contains(p.Roles, r) })
}

// ActsForHotel reports whether the principal may act on a hotel's bookings as staff: an admin
// or finance acts for every hotel, a front desk for the hotels its token names.
func (p Principal) ActsForHotel(hotelID string) bool {
	return p.Has(RoleAdmin, RoleFinance) || (p.Has(RoleFrontDesk) && slices.Contains(p.Hotels, hotelID))
}

// IsStaff reports whether the principal holds a staff role.
func (p Principal) IsStaff() bool { return p.Has(RoleFrontDesk, RoleFinance, RoleAdmin) }

// maxSubjectBytes bounds a subject: identity providers use ids, UUIDs, emails and
// "provider|id" forms, all far shorter.
const maxSubjectBytes = 255

// ValidateSubject checks a customer or staff id as an identity provider issues it: 1-255 bytes
// of UTF-8 text without control characters. Unlike hotel ids it never appears in a URL or a
// workflow id, so it may hold '@', '|' and the like.
func ValidateSubject(field, v string) error {
	ok := v != "" && len(v) <= maxSubjectBytes && utf8.ValidString(v) &&
		!slices.ContainsFunc([]rune(v), unicode.IsControl)
	if !ok {
		return fmt.Errorf("%w: %s must be 1-%d bytes of text without control characters", ErrInvalid, field, maxSubjectBytes)
	}
	return nil
}
