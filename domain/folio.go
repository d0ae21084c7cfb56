package domain

import (
	"fmt"
	"slices"
	"strings"
)

// The folio's extras (issue 39): what the desk charges a stay or a visit besides its price.

// Kinds of extra charge. ChargeOther says what it was in its description.
const (
	ChargeCityTax      = "city_tax"
	ChargeMinibar      = "minibar"
	ChargeLateCheckOut = "late_check_out"
	ChargeEquipment    = "equipment" // a racket, a towel, a locker
	ChargeOther        = "other"
)

// ChargeKinds are the kinds of extra charge, in the order the desk is offered them.
var ChargeKinds = []string{ChargeCityTax, ChargeMinibar, ChargeLateCheckOut, ChargeEquipment, ChargeOther}

// Charge is an extra the desk asks to charge: Quantity of UnitAmount (minor units of Currency).
type Charge struct {
	Kind        string `json:"kind"`
	Description string `json:"description,omitempty"`
	Quantity    int    `json:"quantity"`
	UnitAmount  int64  `json:"unitAmount"`
	Currency    string `json:"currency"`
}

// maxChargeAmount bounds one charge (quantity times unit amount): no extra is a million in
// minor units' thousands, and the bound keeps the product far from overflowing.
const maxChargeAmount = 100_000_000

// Amount is what the charge comes to.
func (c Charge) Amount() int64 { return int64(c.Quantity) * c.UnitAmount }

// Validate says what is wrong with the charge, naming the field: ErrInvalid.
func (c Charge) Validate() error {
	c.Description = strings.TrimSpace(c.Description)
	switch {
	case !slices.Contains(ChargeKinds, c.Kind):
		return fmt.Errorf("%w: kind is one of %s", ErrInvalid, strings.Join(ChargeKinds, ", "))
	case c.Kind == ChargeOther && c.Description == "":
		return fmt.Errorf("%w: description says what an extra of kind other is", ErrInvalid)
	case Longer(c.Description, 200):
		return fmt.Errorf("%w: description is at most 200 characters", ErrInvalid)
	case c.Quantity < 1 || c.Quantity > 999:
		return fmt.Errorf("%w: quantity is from 1 to 999", ErrInvalid)
	case c.UnitAmount <= 0:
		return fmt.Errorf("%w: unitAmount is more than zero (minor units)", ErrInvalid)
	case c.UnitAmount > maxChargeAmount || c.Amount() > maxChargeAmount:
		return fmt.Errorf("%w: a charge is at most %d minor units", ErrInvalid, maxChargeAmount)
	case c.Currency == "":
		return fmt.Errorf("%w: currency is required", ErrInvalid)
	}
	return nil
}
