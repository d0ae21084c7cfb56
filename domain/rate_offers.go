package domain

import (
	"fmt"
	"slices"
	"strings"
)

// NightRates is what one night of a room type holds for pricing: the room type's own rate (the
// default plan's price: a night at 0 is sold only when marked free) and the own rates of the
// root plans that have one on it, by plan code.
type NightRates struct {
	Date     Date             `json:"date"`
	Rate     int64            `json:"rate"`
	Currency string           `json:"currency,omitempty"`
	Free     bool             `json:"free,omitempty"`
	Plans    map[string]Money `json:"plans,omitempty"`
}

// PlanNight is one night of a room type as a rate plan sells it: its price, or why the plan has
// none that night.
type PlanNight struct {
	Date     Date   `json:"date"`
	Amount   *int64 `json:"amount"`
	Currency string `json:"currency,omitempty"`
	// Why the night has no price: no rate set for the chain's root, or a derived price below zero.
	Why string `json:"why,omitempty"`
}

// PlanPricer prices a hotel's plans from nights' rates: a plan's chain is walked once, when the
// pricer is made, and every night of it is priced from its root's rate (DerivedPrice).
type PlanPricer struct {
	plans  map[string]RatePlan
	sorted []RatePlan              // the default plan first, then by code
	chains map[string]pricingChain // absent when the plan's chain is broken
	broken map[string]error
}

// pricingChain is a plan's chain as priced: its root (its code, and whether it is the default
// plan), and each derivation down to the plan with its percent parsed (basis points).
type pricingChain struct {
	root        string
	rootDefault bool
	steps       []Derivation
	bps         []int64
}

// NewPlanPricer makes a pricer of a hotel's plans.
func NewPlanPricer(plans []RatePlan) PlanPricer {
	p := PlanPricer{plans: map[string]RatePlan{}, chains: map[string]pricingChain{}, broken: map[string]error{}}
	for _, plan := range plans {
		p.plans[plan.Code] = plan
	}
	for _, plan := range plans {
		chain, err := DerivationChain(plan.Code, func(c string) (Derivation, bool) {
			if d := p.plans[c].DerivedFrom; d != nil {
				return *d, true
			}
			return Derivation{}, false
		})
		switch _, rootKnown := p.plans[chainRoot(chain)]; {
		case err != nil:
			p.broken[plan.Code] = err
		case !rootKnown:
			p.broken[plan.Code] = fmt.Errorf("%w: rate plan %s derives from %s, which does not exist", ErrInvalid,
				plan.Code, chainRoot(chain))
		default:
			p.chains[plan.Code], p.broken[plan.Code] = p.pricingChain(chain)
			if p.broken[plan.Code] == nil {
				delete(p.broken, plan.Code)
			}
		}
	}
	p.sorted = make([]RatePlan, 0, len(p.plans))
	for _, plan := range p.plans {
		p.sorted = append(p.sorted, plan)
	}
	slices.SortFunc(p.sorted, func(a, b RatePlan) int {
		if a.Default != b.Default {
			if a.Default {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Code, b.Code)
	})
	return p
}

// pricingChain validates a chain's derivations once, for Nightly to apply night after night.
func (p PlanPricer) pricingChain(chain []string) (pricingChain, error) {
	out := pricingChain{root: chain[0], rootDefault: p.plans[chain[0]].Default}
	for _, c := range chain[1:] {
		d := *p.plans[c].DerivedFrom
		if err := d.Validate(); err != nil {
			return out, err
		}
		bp, _ := ParsePercent(d.Percent)
		out.steps, out.bps = append(out.steps, d), append(out.bps, bp)
	}
	return out, nil
}

func chainRoot(chain []string) string {
	if len(chain) == 0 {
		return ""
	}
	return chain[0]
}

// Plan returns a plan by its code.
func (p PlanPricer) Plan(code string) (RatePlan, bool) {
	plan, ok := p.plans[code]
	return plan, ok
}

// Plans returns the plans in code order, the default plan first (not to be changed).
func (p PlanPricer) Plans() []RatePlan { return p.sorted }

// Nightly prices the nights of a room type as plan sells them. An unknown plan is ErrNotFound,
// a broken chain (which the store never lets be written) ErrInvalid; a night without its root's
// rate, or without the room type's own (which every plan needs: it puts the night on sale), or
// whose derived price is below zero, has no price and says why.
func (p PlanPricer) Nightly(code string, nights []NightRates) ([]PlanNight, error) {
	chain, err := p.chain(code)
	if err != nil {
		return nil, err
	}
	out := make([]PlanNight, len(nights))
	for i := range nights {
		out[i] = PlanNight{Date: nights[i].Date}
		if amount, currency, why := chain.night(&nights[i]); why != "" {
			out[i].Why = why
		} else {
			out[i].Amount, out[i].Currency = &amount, currency
		}
	}
	return out, nil
}

// PriceStay prices one unit over nights into price, as StayPrice of Nightly's nights would,
// without them: a search prices every plan of every room type, and each night's PlanNight was an
// allocation. The nights are appended to price.Nights[:0] (a search's offers share one slab);
// why, when not empty, says why the stay has no price (price is then not to be used).
func (p PlanPricer) PriceStay(code string, nights []NightRates, price *Price) (why string, err error) {
	chain, err := p.chain(code)
	switch {
	case err != nil:
		return "", err
	case len(nights) == 0:
		return "no night of the stay is on sale", nil
	}
	*price = Price{Nights: price.Nights[:0]}
	for i := range nights {
		n := &nights[i]
		amount, currency, why := chain.night(n)
		switch {
		case why != "":
			return fmt.Sprintf("%s: %s", n.Date, why), nil
		case i == 0:
			price.Currency = currency
		case currency != price.Currency:
			return fmt.Sprintf("%s: priced in %s, the stay's first night in %s", n.Date, currency, price.Currency), nil
		}
		price.Nights = append(price.Nights, NightRate{Date: n.Date, Amount: amount})
		price.Total += amount
	}
	return "", nil
}

// chain is a plan's pricing chain: an unknown plan is ErrNotFound, a broken chain its error.
func (p PlanPricer) chain(code string) (pricingChain, error) {
	if _, ok := p.plans[code]; !ok {
		return pricingChain{}, fmt.Errorf("%w: rate plan %s", ErrNotFound, code)
	}
	return p.chains[code], p.broken[code]
}

// night prices one night through the chain: its amount and currency, or why it has none (never
// empty then). A night is on sale only with the room type's own rate, under any plan: the
// reservation's stock check (takeUnits) requires it, so a price without it would be offered and
// then refused.
func (c *pricingChain) night(n *NightRates) (amount int64, currency, why string) {
	rate, currency, ok := n.Rate, n.Currency, n.Rate > 0 || n.Free
	if !ok && !c.rootDefault {
		return 0, "", fmt.Sprintf("no rate is set for %s on this night: the room type is not on sale then", DefaultRatePlan)
	}
	if !c.rootDefault {
		own, has := n.Plans[c.root]
		rate, currency, ok = own.Amount, own.Currency, has
	}
	if !ok {
		return 0, "", fmt.Sprintf("no rate is set for %s on this night", c.root)
	}
	price, err := c.price(rate)
	if err != nil {
		return 0, "", strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": ")
	}
	return price, currency, ""
}

// StayPrice is the price of one unit over nights priced by Nightly: nil and the first night's
// reason when a night has no price or the nights disagree on the currency.
func StayPrice(nights []PlanNight) (*Price, string) {
	if len(nights) == 0 {
		return nil, "no night of the stay is on sale"
	}
	price := &Price{Currency: nights[0].Currency, Nights: make([]NightRate, len(nights))}
	for i, n := range nights {
		switch {
		case n.Amount == nil:
			return nil, fmt.Sprintf("%s: %s", n.Date, n.Why)
		case n.Currency != price.Currency:
			return nil, fmt.Sprintf("%s: priced in %s, the stay's first night in %s", n.Date, n.Currency, price.Currency)
		}
		price.Nights[i] = NightRate{Date: n.Date, Amount: *n.Amount}
		price.Total += *n.Amount
	}
	return price, ""
}

// SoldThrough reports whether a sale through channel (empty: a direct sale, by the hotel's own
// site or desk) may sell the plan. A plan naming no channel is sold direct only.
func (p RatePlan) SoldThrough(channel string) bool {
	return channel == "" || slices.Contains(p.Channels, AnyChannel) || slices.Contains(p.Channels, channel)
}

// Offer is one way a search may sell a room type over a stay: a rate plan with its terms and the
// price of one unit, or why the plan cannot sell the stay.
type Offer struct {
	RatePlan string         `json:"ratePlan"`
	Name     string         `json:"name"`
	Board    Board          `json:"board"`
	Includes string         `json:"includes,omitempty"`
	Policy   RatePlanPolicy `json:"policy"`
	Payment  PaymentRule    `json:"payment"`
	// Price is one unit over the stay, with any length-of-stay discount taken off; nil when a
	// night has no price.
	Price             *Price `json:"price,omitempty"`
	Sellable          bool   `json:"sellable"`
	UnsellableBecause string `json:"unsellableBecause,omitempty"`
}

// OfferTerms is a plan's offer without its price: its terms, the default plan's policy being the
// hotel's (a no-show keeps everything).
func (p RatePlan) OfferTerms(hotelPolicy CancellationPolicy) Offer {
	o := Offer{RatePlan: p.Code, Name: p.Name, Board: p.Board, Includes: p.Includes, Payment: p.Payment,
		Policy: RatePlanPolicy{CancellationPolicy: hotelPolicy, NoShow: NoShowKeepsAll}}
	if p.Policy != nil {
		o.Policy = *p.Policy
		if o.Policy.NoShow == "" {
			o.Policy.NoShow = NoShowKeepsAll
		}
	}
	return o
}

// PlanTerms are what a booking keeps of the plan it was sold under, besides its price and its
// cancellation policy (kept as every booking's is): the plan's name, what it includes, its
// payment rule and what a no-show keeps.
type PlanTerms struct {
	Name          string      `json:"name"`
	Board         Board       `json:"board"`
	Includes      string      `json:"includes,omitempty"`
	Payment       PaymentRule `json:"payment"`
	NoShow        string      `json:"noShow"`
	NoShowPercent int         `json:"noShowPercent,omitempty"`
}

// NonRefundableHours is the free window and the no-refund hours a non-refundable booking keeps
// with its NonRefundable mark (ten years): a release that does not know the mark (a worker of
// the previous release during a deploy, or after a rollback) reads the policy as refunding
// nothing before check-in either.
const NonRefundableHours = 10 * 365 * 24

// Terms are the plan's terms a booking keeps; its policy, the hotel's for the default plan.
func (p RatePlan) Terms(hotelPolicy CancellationPolicy) (PlanTerms, CancellationPolicy) {
	o := p.OfferTerms(hotelPolicy)
	policy := o.Policy.CancellationPolicy
	if policy.NonRefundable {
		policy.FreeUntilHours, policy.NoRefundHours = NonRefundableHours, NonRefundableHours
	}
	return PlanTerms{Name: o.Name, Board: o.Board, Includes: o.Includes, Payment: o.Payment, NoShow: o.Policy.NoShow,
		NoShowPercent: o.Policy.NoShowPercent}, policy
}

// price is DerivedPrice of a root price through the chain's validated derivations.
func (c pricingChain) price(root int64) (int64, error) {
	price := root
	for i, d := range c.steps {
		var err error
		if price, err = d.derive(price, c.bps[i]); err != nil {
			return 0, fmt.Errorf("%w (deriving from %s)", err, d.Parent)
		}
	}
	return price, nil
}
