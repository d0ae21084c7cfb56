package domain

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// RoundingMode says which way a derived price that falls between two multiples of its step goes.
type RoundingMode string

// The rounding modes. Derived prices are never below zero, so "away from zero" is up.
const (
	RoundNearest RoundingMode = "nearest" // the nearer multiple; exactly half a step goes away from zero
	RoundDown    RoundingMode = "down"    // toward zero
	RoundUp      RoundingMode = "up"      // away from zero
)

// MaxRoundingStep is the largest step a rounding may use (10,000.00 of a currency with cents).
const MaxRoundingStep = 1_000_000

// Rounding rounds a derived price to a multiple of Step minor units. The zero value rounds to the
// nearest minor unit: an empty Mode is RoundNearest and a Step of 0 is 1.
type Rounding struct {
	Mode RoundingMode `json:"mode"`
	Step int64        `json:"step"`
}

// Validate checks the mode and step.
func (r Rounding) Validate() error {
	switch {
	case r.Mode != "" && r.Mode != RoundNearest && r.Mode != RoundDown && r.Mode != RoundUp:
		return fmt.Errorf("%w: rounding mode must be nearest, down or up", ErrInvalid)
	case r.Step < 0 || r.Step > MaxRoundingStep:
		return fmt.Errorf("%w: rounding step must be between 0 and %d minor units", ErrInvalid, MaxRoundingStep)
	}
	return nil
}

// step is the step in effect: 0 means 1.
func (r Rounding) step() int64 {
	return max(r.Step, 1)
}

// round returns num/den rounded to a multiple of the step by the mode. It takes num >= 0 and
// den > 0 (a derived price below zero is refused before rounding); den*step must fit int64,
// which den <= 10,000 and MaxRoundingStep guarantee.
func (r Rounding) round(num, den int64) int64 {
	unit := den * r.step()
	q, rem := num/unit, num%unit
	switch r.Mode {
	case RoundDown:
	case RoundUp:
		if rem > 0 {
			q++
		}
	default:
		if 2*rem >= unit { // rem < unit <= 10^10: 2*rem cannot overflow
			q++
		}
	}
	return q * r.step()
}

// Limits of a derivation. MaxRatePrice bounds the prices derivation works on so that every
// product stays within int64 without math/big: 10^13 * 110,000 (a +1000% factor in basis points)
// is 1.1*10^18, below 9.2*10^18. It is 100 billion of a currency with cents, and still 10
// trillion of one without (VND) a night.
const (
	MaxRatePrice       = 10_000_000_000_000
	MaxDerivedAmount   = 100_000_000_00 // ±100 million of a currency with cents a night
	MinDerivedPercent  = -100_00        // basis points: -100%, a free plan
	MaxDerivedPercent  = 1000_00        // basis points: +1000%
	MaxDerivationDepth = 8              // plans in a chain, its root included
)

// Derivation prices a rate plan from its parent plan's nightly price: the parent's price changed
// by Percent (a signed decimal with at most two places, "-10", "+7.5") or by Amount minor units
// (negative: a discount), exactly one of the two, then rounded.
type Derivation struct {
	Parent   string   `json:"parent"`
	Percent  string   `json:"percent,omitempty"`
	Amount   *int64   `json:"amount,omitempty"`
	Rounding Rounding `json:"rounding,omitzero"`
}

// Validate checks the derivation's shape. It does not check that the parent plan exists.
func (d Derivation) Validate() error {
	if err := ValidateID("parent", d.Parent); err != nil {
		return err
	}
	switch {
	case (d.Percent == "") == (d.Amount == nil):
		return fmt.Errorf("%w: a derivation sets percent or amount, exactly one", ErrInvalid)
	case d.Amount != nil && (*d.Amount < -MaxDerivedAmount || *d.Amount > MaxDerivedAmount):
		return fmt.Errorf("%w: a derivation's amount must be between -%d and %d minor units", ErrInvalid, int64(MaxDerivedAmount), int64(MaxDerivedAmount))
	}
	if d.Percent != "" {
		if _, err := ParsePercent(d.Percent); err != nil {
			return err
		}
	}
	return d.Rounding.Validate()
}

// percentPattern: an optional sign, digits, and at most two decimals after a point that has
// digits on both sides. No spaces, exponents or NaN: the string is what a person typed and saw.
var percentPattern = regexp.MustCompile(`^[+-]?([0-9]+)(?:\.([0-9]{1,2}))?$`)

// ParsePercent reads a percent such as "-12.25" exactly, as basis points (-1225), between
// -100 and +1000 inclusive.
func ParsePercent(s string) (int64, error) {
	m := percentPattern.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%w: percent %q must be a decimal such as -10 or +7.5, with at most two decimals", ErrInvalid, s)
	}
	whole, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || whole > MaxDerivedPercent/100 { // err: too many digits for int64
		return 0, fmt.Errorf("%w: percent %q must be between -100 and +1000", ErrInvalid, s)
	}
	frac, _ := strconv.ParseInt((m[2] + "00")[:2], 10, 64) // "5" is 50 hundredths
	bp := whole*100 + frac
	if strings.HasPrefix(s, "-") {
		bp = -bp
	}
	if bp < MinDerivedPercent || bp > MaxDerivedPercent {
		return 0, fmt.Errorf("%w: percent %q must be between -100 and +1000", ErrInvalid, s)
	}
	return bp, nil
}

// Apply returns the nightly price derived from the parent's (minor units, 0..MaxRatePrice),
// computed exactly in integers and then rounded once. A derived price below zero (an amount off
// that is more than the parent's price) is an error, checked before rounding; zero is a price.
func (d Derivation) Apply(parent int64) (int64, error) {
	if err := d.Validate(); err != nil {
		return 0, err
	}
	bp, _ := ParsePercent(d.Percent) // Validate parsed it (0 for an amount)
	return d.derive(parent, bp)
}

// derive is Apply of a valid derivation whose percent is bp basis points (parsed once by a
// caller pricing many nights).
func (d Derivation) derive(parent, bp int64) (int64, error) {
	if parent < 0 || parent > MaxRatePrice {
		return 0, fmt.Errorf("%w: a parent price must be between 0 and %d minor units", ErrInvalid, int64(MaxRatePrice))
	}
	if d.Amount != nil {
		price := parent + *d.Amount
		if price < 0 {
			return 0, fmt.Errorf("%w: derived price below zero (%d %+d)", ErrInvalid, parent, *d.Amount)
		}
		return d.Rounding.round(price, 1), nil
	}
	// bp >= -10,000, so the product is >= 0; <= 10^13 * 110,000 fits int64 (see MaxRatePrice).
	return d.Rounding.round(parent*(10_000+bp), 10_000), nil
}

// DerivedPrice prices a plan from its root plan's price and the derivations from the root down
// (a chain of DerivationChain's codes, root excluded). Each level rounds by its own rounding and
// the next level derives from that rounded price, as a person reading the parent's price would.
func DerivedPrice(root int64, chain []Derivation) (int64, error) {
	price := root
	for _, d := range chain {
		var err error
		if price, err = d.Apply(price); err != nil {
			return 0, fmt.Errorf("%w (deriving from %s)", err, d.Parent)
		}
	}
	return price, nil
}

// DerivationChain returns the codes of the plans code derives from, root first and code last.
// parentOf returns a plan's derivation and whether the plan is derived; a plan it says is not
// derived (an unknown code included) is the root. A cycle is an error naming its codes, as is a
// chain of more than MaxDerivationDepth plans, root included. The walk stops at that depth, so
// a cycle that closes only beyond it is reported as too deep.
func DerivationChain(code string, parentOf func(string) (Derivation, bool)) ([]string, error) {
	chain := []string{code}
	for {
		d, derived := parentOf(chain[len(chain)-1])
		if !derived {
			break
		}
		if i := slices.Index(chain, d.Parent); i >= 0 {
			cycle := strings.Join(append(slices.Clone(chain[i:]), d.Parent), " -> ")
			return nil, fmt.Errorf("%w: rate plans derive from each other in a cycle: %s (each from the next)", ErrInvalid, cycle)
		}
		if len(chain) == MaxDerivationDepth {
			return nil, fmt.Errorf("%w: rate plan %s derives through more than %d plans", ErrInvalid, code, MaxDerivationDepth)
		}
		chain = append(chain, d.Parent)
	}
	slices.Reverse(chain)
	return chain, nil
}
