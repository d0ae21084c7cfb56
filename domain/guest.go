package domain

import (
	"fmt"
	"net/mail"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Guest is who stays or plays under a booking, as the front desk writes it down. Personal data:
// kept in PostgreSQL beside the booking (booking_guests), never in a workflow, and erased with
// the customer.
type Guest struct {
	Name  string `json:"name"`
	Phone string `json:"phone"` // E.164, as NormalisePhoneIn gives it ("" for none)
	Email string `json:"email"`
	// Guests is how many people (0: not said).
	Guests int `json:"guests,omitempty"`
	// ArrivalTime is when they expect to arrive, "HH:MM" at the site ("" for not said).
	ArrivalTime string `json:"arrivalTime,omitempty"`
	Notes       string `json:"notes"` // requests and notes, for the desk
}

var arrivalTime = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]$`)

// Validate checks a guest's details as the desk typed them (the phone already normalised),
// trimming spaces; a refusal names the field.
func (g *Guest) Validate() error {
	g.Name, g.Email, g.Notes = strings.TrimSpace(g.Name), strings.TrimSpace(g.Email), strings.TrimSpace(g.Notes)
	switch {
	case utf8.RuneCountInString(g.Name) > 200:
		return fmt.Errorf("%w: name is at most 200 characters", ErrInvalid)
	case len(g.Email) > 254:
		return fmt.Errorf("%w: email is at most 254 characters", ErrInvalid)
	case g.Email != "" && !validEmail(g.Email):
		return fmt.Errorf("%w: email %q is not an e-mail address", ErrInvalid, g.Email)
	case g.Guests < 0 || g.Guests > 99:
		return fmt.Errorf("%w: guests is 1 to 99 (or left out)", ErrInvalid)
	case g.ArrivalTime != "" && !arrivalTime.MatchString(g.ArrivalTime):
		return fmt.Errorf("%w: arrivalTime is HH:MM, 00:00 to 23:59", ErrInvalid)
	case utf8.RuneCountInString(g.Notes) > 2000:
		return fmt.Errorf("%w: notes are at most 2000 characters", ErrInvalid)
	}
	return nil
}

// validEmail accepts one bare address (name@domain), as a guest gives it.
func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && a.Name == "" && strings.Contains(s[strings.LastIndex(s, "@")+1:], ".")
}

var roomNumber = regexp.MustCompile(`^[A-Za-z0-9._-]{1,16}$`)

// ValidateRoomNumber checks a hotel room's number ("101", "2.14", "A-3"): 1 to 16 letters,
// digits, dots, dashes or underscores.
func ValidateRoomNumber(n string) error {
	if !roomNumber.MatchString(n) {
		return fmt.Errorf("%w: room %q is 1 to 16 letters, digits, dots, dashes or underscores", ErrInvalid, n)
	}
	return nil
}
