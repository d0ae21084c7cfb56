package domain

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// A group block sets rooms of one room type aside, night by night, for a group whose guests book
// later under its code (docs/groups-and-blocks.md).

// BlockStatus is where a block stands. INQUIRY deducts nothing (tentative); DEFINITE takes its
// rooms from sale; RELEASED and CANCELLED hold nothing any more.
type BlockStatus string

const (
	BlockInquiry   BlockStatus = "INQUIRY"
	BlockDefinite  BlockStatus = "DEFINITE"
	BlockReleased  BlockStatus = "RELEASED"
	BlockCancelled BlockStatus = "CANCELLED"
)

// Release kinds: every night at one cut-off date, each night a number of days before it, or never
// by itself.
const (
	ReleaseFixed   = "fixed"
	ReleaseRolling = "rolling"
	ReleaseNone    = "none"
)

// BlockNight is a night of a block: the rooms promised, and the negotiated price of one room
// that night (minor units of the block's currency) when the block has no rate plan.
type BlockNight struct {
	Date  Date   `json:"date"`
	Rooms int    `json:"rooms"`
	Price *int64 `json:"price,omitempty"`
}

// BlockRelease is when a block's unpicked rooms go back to sale, at Time (HH:MM, default 00:00)
// on the hotel's clock: on Date for a fixed release, Days before each night for a rolling one.
type BlockRelease struct {
	Kind string `json:"kind"`
	Date *Date  `json:"date,omitempty"`
	Days *int   `json:"days,omitempty"`
	Time string `json:"time,omitempty"`
}

// BlockOwner is the group's organiser: personal data, kept in PostgreSQL only (never in a
// workflow's input or an event).
type BlockOwner struct {
	Name    string `json:"name"`
	Contact string `json:"contact"`
}

// BlockRequest creates a block (INQUIRY), or replaces a tentative block's terms.
type BlockRequest struct {
	GroupCode  string       `json:"groupCode"`
	Name       string       `json:"name"`
	RoomTypeID string       `json:"roomTypeId"`
	Nights     []BlockNight `json:"nights"`
	// RatePlan: pickups are sold under this plan. Otherwise Currency and each night's Price.
	RatePlan string       `json:"ratePlan,omitempty"`
	Currency string       `json:"currency,omitempty"`
	Overflow bool         `json:"overflow"`
	Release  BlockRelease `json:"release"`
	// Direct: the group's guests and the desk may book it (default true); Channels: the
	// channels whose agents may.
	Direct   *bool      `json:"direct,omitempty"`
	Channels []string   `json:"channels,omitempty"`
	Owner    BlockOwner `json:"owner"`
}

var groupCodePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{1,39}$`)

// ValidateGroupCode checks a group code's shape: 2 to 40 letters, digits, - and _.
func ValidateGroupCode(code string) error {
	if !groupCodePattern.MatchString(code) {
		return fmt.Errorf("%w: groupCode must be 2 to 40 letters, digits, - or _, starting with a letter or digit", ErrInvalid)
	}
	return nil
}

// MaxBlockNights is the most nights one block spans.
const MaxBlockNights = 366

// MaxBlockPrice bounds a night's negotiated price (minor units): a pickup's total, at most the
// most rooms times the most nights of a booking, stays far inside an int64.
const MaxBlockPrice = 1_000_000_000_000

// ValidateText refuses text PostgreSQL cannot store or a person cannot read: invalid UTF-8 and
// control characters (tabs and line breaks aside).
func ValidateText(field, v string) error {
	if !utf8.ValidString(v) || strings.ContainsFunc(v, func(r rune) bool { return unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' }) {
		return fmt.Errorf("%w: %s has a control character or is not UTF-8", ErrInvalid, field)
	}
	return nil
}

// Validate checks the request's shape; that the nights are on sale is the store's to say.
func (r *BlockRequest) Validate() error {
	if err := ValidateGroupCode(r.GroupCode); err != nil {
		return err
	}
	if err := ValidateID("roomTypeId", r.RoomTypeID); err != nil {
		return err
	}
	if r.Name == "" || Longer(r.Name, 200) {
		return fmt.Errorf("%w: name is required (at most 200 characters)", ErrInvalid)
	}
	if Longer(r.Owner.Name, 200) || Longer(r.Owner.Contact, 200) {
		return fmt.Errorf("%w: owner.name and owner.contact take at most 200 characters", ErrInvalid)
	}
	for _, f := range []struct{ name, v string }{{"name", r.Name}, {"owner.name", r.Owner.Name}, {"owner.contact", r.Owner.Contact}} {
		if err := ValidateText(f.name, f.v); err != nil {
			return err
		}
	}
	if len(r.Nights) == 0 || len(r.Nights) > MaxBlockNights {
		return fmt.Errorf("%w: nights must list 1 to %d nights", ErrInvalid, MaxBlockNights)
	}
	slices.SortFunc(r.Nights, func(a, b BlockNight) int { return a.Date.Time().Compare(b.Date.Time()) })
	for i, n := range r.Nights {
		switch {
		case n.Date.IsZero():
			return fmt.Errorf("%w: nights[%d].date is required", ErrInvalid, i)
		case i > 0 && n.Date == r.Nights[i-1].Date:
			return fmt.Errorf("%w: the night of %s is listed twice", ErrInvalid, n.Date)
		case n.Rooms < 0 || n.Rooms > 10000:
			return fmt.Errorf("%w: the night of %s: rooms must be between 0 and 10000", ErrInvalid, n.Date)
		case r.RatePlan != "" && n.Price != nil:
			return fmt.Errorf("%w: the night of %s has a price, but the block is sold under rate plan %s", ErrInvalid, n.Date, r.RatePlan)
		case r.RatePlan == "" && (n.Price == nil || *n.Price < 0):
			return fmt.Errorf("%w: the night of %s needs a price (minor units of currency), or give the block a ratePlan", ErrInvalid, n.Date)
		case n.Price != nil && *n.Price > MaxBlockPrice:
			return fmt.Errorf("%w: the night of %s: a price is at most %d minor units", ErrInvalid, n.Date, int64(MaxBlockPrice))
		}
	}
	if r.Nights[0].Date.DaysUntil(r.Nights[len(r.Nights)-1].Date) >= MaxBlockNights {
		return fmt.Errorf("%w: a block spans at most %d nights", ErrInvalid, MaxBlockNights)
	}
	if r.RatePlan != "" {
		if r.Currency != "" {
			return fmt.Errorf("%w: a block sold under a rate plan takes the plan's prices: leave currency out", ErrInvalid)
		}
		if err := ValidateID("ratePlan", r.RatePlan); err != nil {
			return err
		}
	} else if err := ValidateCurrency(r.Currency); err != nil {
		return err
	}
	if r.Direct == nil {
		r.Direct = new(true)
	}
	for _, c := range r.Channels {
		if err := ValidateID("channels", c); err != nil {
			return err
		}
	}
	if !*r.Direct && len(r.Channels) == 0 {
		return fmt.Errorf("%w: nobody could book the block: set direct, or name channels", ErrInvalid)
	}
	return r.Release.validate(r.Nights[0].Date)
}

// validate checks a release's shape against the block's first night.
func (rel *BlockRelease) validate(first Date) error {
	if rel.Time == "" {
		rel.Time = "00:00"
	}
	if _, err := time.Parse("15:04", rel.Time); err != nil {
		return fmt.Errorf("%w: release.time must be HH:MM on the hotel's clock", ErrInvalid)
	}
	switch rel.Kind {
	case ReleaseFixed:
		if rel.Date == nil || rel.Days != nil {
			return fmt.Errorf("%w: a fixed release takes release.date (and no days)", ErrInvalid)
		}
		if rel.Date.After(first) {
			return fmt.Errorf("%w: release.date %s is after the block's first night %s", ErrInvalid, *rel.Date, first)
		}
	case ReleaseRolling:
		if rel.Days == nil || rel.Date != nil || *rel.Days < 0 || *rel.Days > 730 {
			return fmt.Errorf("%w: a rolling release takes release.days, 0 to 730 (and no date)", ErrInvalid)
		}
	case ReleaseNone, "":
		rel.Kind = ReleaseNone
		if rel.Date != nil || rel.Days != nil {
			return fmt.Errorf("%w: a block with no release takes no release.date or release.days", ErrInvalid)
		}
	default:
		return fmt.Errorf("%w: release.kind must be fixed, rolling or none", ErrInvalid)
	}
	return nil
}

// BlockRoomsChange releases rooms of a definite block early: Rooms on each night of Nights (all
// its nights when empty), or Percent of what each night still holds (a wash), rounded down.
type BlockRoomsChange struct {
	Nights  []Date `json:"nights,omitempty"`
	Rooms   int    `json:"rooms,omitempty"`
	Percent int    `json:"percent,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// Validate checks that exactly one of Rooms and Percent is given.
func (c BlockRoomsChange) Validate() error {
	switch {
	case (c.Rooms == 0) == (c.Percent == 0):
		return fmt.Errorf("%w: give rooms (released on each night) or percent (a wash of what each night holds)", ErrInvalid)
	case c.Rooms < 0 || c.Rooms > 10000:
		return fmt.Errorf("%w: rooms must be between 1 and 10000", ErrInvalid)
	case c.Percent < 0 || c.Percent > 100:
		return fmt.Errorf("%w: percent must be between 1 and 100", ErrInvalid)
	case Longer(c.Reason, 500):
		return fmt.Errorf("%w: reason takes at most 500 characters", ErrInvalid)
	}
	return ValidateText("reason", c.Reason)
}
