package domain_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/bookflow/bookflow/domain"
)

func byPercent(p string, mode domain.RoundingMode, step int64) domain.Derivation {
	return domain.Derivation{Parent: "bar", Percent: p, Rounding: domain.Rounding{Mode: mode, Step: step}}
}

func byAmount(a int64, mode domain.RoundingMode, step int64) domain.Derivation {
	return domain.Derivation{Parent: "bar", Amount: &a, Rounding: domain.Rounding{Mode: mode, Step: step}}
}

func TestParsePercent(t *testing.T) {
	for s, bp := range map[string]int64{
		"-10": -1000, "+7.5": 750, "-12.25": -1225, "7.50": 750, "0": 0, "-0": 0, "+0.00": 0, "12": 1200,
		"-100": -10000, "-100.00": -10000, "1000": 100000, "+1000.0": 100000, "0.01": 1, "-0.01": -1, "007": 700,
	} {
		got, err := domain.ParsePercent(s)
		if assert.NoError(t, err, s) {
			assert.Equal(t, bp, got, s)
		}
	}
	for _, s := range []string{
		"1e2", "10.", ".5", "10.123", " 10", "10 ", "", "--1", "+-1", "NaN", "Inf", "+", "-", "1,5", "0x10",
		"-100.01", "1000.01", "1001", "99999999999999999999999", "١٠", "10%",
	} {
		_, err := domain.ParsePercent(s)
		assert.ErrorIs(t, err, domain.ErrInvalid, "%q", s)
	}
}

func TestDerivationValidate(t *testing.T) {
	require.NoError(t, byPercent("-10", "", 0).Validate())
	require.NoError(t, byAmount(-domain.MaxDerivedAmount, domain.RoundUp, domain.MaxRoundingStep).Validate())
	both := byPercent("5", "", 0)
	five := int64(5)
	both.Amount = &five
	for name, d := range map[string]domain.Derivation{
		"neither":          {Parent: "bar"},
		"both":             both,
		"no parent":        {Percent: "5"},
		"bad parent":       {Parent: "b a r", Percent: "5"},
		"bad percent":      byPercent("5.", "", 0),
		"percent too low":  byPercent("-100.01", "", 0),
		"amount too low":   byAmount(-domain.MaxDerivedAmount-1, "", 0),
		"amount too high":  byAmount(domain.MaxDerivedAmount+1, "", 0),
		"unknown mode":     byPercent("5", "half_even", 0),
		"negative step":    byPercent("5", "", -1),
		"step beyond 10^6": byPercent("5", "", domain.MaxRoundingStep+1),
	} {
		assert.ErrorIs(t, d.Validate(), domain.ErrInvalid, name)
		_, err := d.Apply(100)
		assert.ErrorIs(t, err, domain.ErrInvalid, "Apply refuses what Validate does: %s", name)
	}
}

func TestDerivationJSON(t *testing.T) {
	b, err := json.Marshal(byPercent("-10", "", 0))
	require.NoError(t, err)
	assert.JSONEq(t, `{"parent":"bar","percent":"-10"}`, string(b), "no amount, and the zero rounding left out")
	b, err = json.Marshal(byAmount(-500, domain.RoundUp, 100))
	require.NoError(t, err)
	assert.JSONEq(t, `{"parent":"bar","amount":-500,"rounding":{"mode":"up","step":100}}`, string(b))
}

func TestApplyRoundsEachModeAtTheEdgesOfHalfAStep(t *testing.T) {
	type want struct{ nearest, down, up int64 }
	for _, c := range []struct {
		name   string
		parent int64
		d      func(domain.RoundingMode) domain.Derivation
		want   want
	}{
		{"4.5, step 1", 5, func(m domain.RoundingMode) domain.Derivation { return byPercent("-10", m, 0) }, want{5, 4, 5}},
		{"1.4999, step 1", 1, func(m domain.RoundingMode) domain.Derivation { return byPercent("+49.99", m, 1) }, want{1, 1, 2}},
		{"1.5, step 1", 1, func(m domain.RoundingMode) domain.Derivation { return byPercent("+50", m, 1) }, want{2, 1, 2}},
		{"1.5001, step 1", 1, func(m domain.RoundingMode) domain.Derivation { return byPercent("+50.01", m, 1) }, want{2, 1, 2}},
		{"an exact 90, step 1", 100, func(m domain.RoundingMode) domain.Derivation { return byPercent("-10", m, 1) }, want{90, 90, 90}},
		{"12.49, step 5", 1249, func(m domain.RoundingMode) domain.Derivation { return byPercent("-99", m, 5) }, want{10, 10, 15}},
		{"12.5, step 5", 1250, func(m domain.RoundingMode) domain.Derivation { return byPercent("-99", m, 5) }, want{15, 10, 15}},
		{"12.51, step 5", 1251, func(m domain.RoundingMode) domain.Derivation { return byPercent("-99", m, 5) }, want{15, 10, 15}},
		{"1249, step 100", 1249, func(m domain.RoundingMode) domain.Derivation { return byAmount(0, m, 100) }, want{1200, 1200, 1300}},
		{"1250, step 100", 1000, func(m domain.RoundingMode) domain.Derivation { return byAmount(250, m, 100) }, want{1300, 1200, 1300}},
		{"1251, step 100", 1251, func(m domain.RoundingMode) domain.Derivation { return byAmount(0, m, 100) }, want{1300, 1200, 1300}},
		{"1200, step 100", 1300, func(m domain.RoundingMode) domain.Derivation { return byAmount(-100, m, 100) }, want{1200, 1200, 1200}},
		{"49995, step 100", 4545, func(m domain.RoundingMode) domain.Derivation { return byPercent("+1000", m, 100) }, want{50000, 49900, 50000}},
	} {
		for mode, w := range map[domain.RoundingMode]int64{domain.RoundNearest: c.want.nearest, domain.RoundDown: c.want.down, domain.RoundUp: c.want.up} {
			got, err := c.d(mode).Apply(c.parent)
			if assert.NoError(t, err, "%s %s", c.name, mode) {
				assert.Equal(t, w, got, "%s, %s", c.name, mode)
			}
		}
		got, err := c.d("").Apply(c.parent)
		require.NoError(t, err)
		assert.Equal(t, c.want.nearest, got, "%s: an empty mode is nearest", c.name)
	}
}

func TestApplyAtTheEndsOfItsRanges(t *testing.T) {
	for _, mode := range []domain.RoundingMode{domain.RoundNearest, domain.RoundDown, domain.RoundUp} {
		for _, parent := range []int64{0, 1, 999, domain.MaxRatePrice} {
			got, err := byPercent("-100", mode, 100).Apply(parent)
			require.NoError(t, err)
			assert.Zero(t, got, "-100%% of %d, %s", parent, mode)
		}
		got, err := byPercent("+1000", mode, 0).Apply(domain.MaxRatePrice)
		require.NoError(t, err)
		assert.Equal(t, int64(11*domain.MaxRatePrice), got, "+1000%% of the largest parent fits, %s", mode)
		got, err = byAmount(-1000, mode, 5).Apply(1000)
		require.NoError(t, err)
		assert.Zero(t, got, "an amount off down to exactly zero, %s", mode)
		_, err = byAmount(-1001, mode, 5).Apply(1000)
		assert.ErrorIs(t, err, domain.ErrInvalid, "below zero, %s", mode)
		assert.ErrorContains(t, err, "derived price below zero")
	}
	got, err := byAmount(-999, domain.RoundUp, 5).Apply(1000)
	require.NoError(t, err)
	assert.Equal(t, int64(5), got, "1 rounded up to a step of 5")
	got, err = byAmount(-999, domain.RoundNearest, 5).Apply(1000)
	require.NoError(t, err)
	assert.Zero(t, got, "1 rounded to the nearest 5")
	for _, parent := range []int64{-1, domain.MaxRatePrice + 1} {
		_, err := byPercent("0", "", 0).Apply(parent)
		assert.ErrorIs(t, err, domain.ErrInvalid, "parent %d", parent)
	}
}

// refApply is the derived price by the documented rule, with exact rationals: the parent's price
// changed by bp basis points or by amount, then a multiple of step, the nearer one (half away from
// zero), the one toward zero or the one away from it. ok is false for a price below zero.
func refApply(parent int64, bp int64, amount *int64, r domain.Rounding) (price int64, ok bool) {
	v := new(big.Rat).SetInt64(parent)
	if amount != nil {
		v.Add(v, new(big.Rat).SetInt64(*amount))
	} else {
		v.Mul(v, big.NewRat(10_000+bp, 10_000))
	}
	if v.Sign() < 0 {
		return 0, false
	}
	step := max(r.Step, 1)
	q := new(big.Rat).Quo(new(big.Rat).Abs(v), new(big.Rat).SetInt64(step))
	n := new(big.Int).Quo(q.Num(), q.Denom())
	frac := new(big.Rat).Sub(q, new(big.Rat).SetInt(n))
	switch r.Mode {
	case domain.RoundUp:
		if frac.Sign() > 0 {
			n.Add(n, big.NewInt(1))
		}
	case domain.RoundNearest, "":
		if frac.Cmp(big.NewRat(1, 2)) >= 0 {
			n.Add(n, big.NewInt(1))
		}
	}
	n.Mul(n, big.NewInt(int64(v.Sign())*step))
	return n.Int64(), true
}

// percentString writes bp basis points as a person might: with or without a plus, with the
// decimals it needs or with trailing zeros.
func percentString(t *rapid.T, bp int64) string {
	sign := ""
	if bp < 0 {
		sign, bp = "-", -bp
	} else if rapid.Bool().Draw(t, "plus") {
		sign = "+"
	}
	whole, frac := bp/100, bp%100
	forms := []string{fmt.Sprintf("%d.%02d", whole, frac)}
	switch {
	case frac == 0:
		forms = append(forms, fmt.Sprint(whole), fmt.Sprintf("%d.0", whole))
	case frac%10 == 0:
		forms = append(forms, fmt.Sprintf("%d.%d", whole, frac/10))
	}
	return sign + rapid.SampledFrom(forms).Draw(t, "form")
}

type drawnDerivation struct {
	d      domain.Derivation
	bp     int64
	amount *int64
}

func drawDerivation(t *rapid.T, label string) drawnDerivation {
	r := domain.Rounding{
		Mode: rapid.SampledFrom([]domain.RoundingMode{"", domain.RoundNearest, domain.RoundDown, domain.RoundUp}).Draw(t, label+" mode"),
		Step: rapid.OneOf(rapid.SampledFrom([]int64{0, 1, 5, 100, domain.MaxRoundingStep}), rapid.Int64Range(0, domain.MaxRoundingStep)).Draw(t, label+" step"),
	}
	if rapid.Bool().Draw(t, label+" by amount") {
		a := rapid.Int64Range(-domain.MaxDerivedAmount, domain.MaxDerivedAmount).Draw(t, label+" amount")
		return drawnDerivation{d: domain.Derivation{Parent: "bar", Amount: &a, Rounding: r}, amount: &a}
	}
	bp := rapid.Int64Range(domain.MinDerivedPercent, domain.MaxDerivedPercent).Draw(t, label+" basis points")
	return drawnDerivation{d: domain.Derivation{Parent: "bar", Percent: percentString(t, bp), Rounding: r}, bp: bp}
}

func TestPropertyApplyIsTheExactPriceRoundedByTheRule(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		parent := rapid.Int64Range(0, domain.MaxRatePrice).Draw(t, "parent")
		dd := drawDerivation(t, "derivation")
		if dd.amount == nil {
			bp, err := domain.ParsePercent(dd.d.Percent)
			require.NoError(t, err)
			require.Equal(t, dd.bp, bp, "%q", dd.d.Percent)
		}
		got, err := dd.d.Apply(parent)
		want, ok := refApply(parent, dd.bp, dd.amount, dd.d.Rounding)
		if !ok {
			require.ErrorIs(t, err, domain.ErrInvalid)
			return
		}
		require.NoError(t, err)
		require.Equal(t, want, got)
		require.GreaterOrEqual(t, got, int64(0))
		require.Zero(t, got%max(dd.d.Rounding.Step, 1), "a multiple of the step")
	})
}

func TestPropertyDownNearestUpAreAtMostAStepApart(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		parent := rapid.Int64Range(0, domain.MaxRatePrice).Draw(t, "parent")
		d := drawDerivation(t, "derivation").d
		price := map[domain.RoundingMode]int64{}
		for _, mode := range []domain.RoundingMode{domain.RoundDown, domain.RoundNearest, domain.RoundUp} {
			d.Rounding.Mode = mode
			p, err := d.Apply(parent)
			if err != nil {
				require.ErrorIs(t, err, domain.ErrInvalid)
				require.Empty(t, price, "only a price below zero fails, whatever the mode")
				return
			}
			price[mode] = p
		}
		require.LessOrEqual(t, price[domain.RoundDown], price[domain.RoundNearest])
		require.LessOrEqual(t, price[domain.RoundNearest], price[domain.RoundUp])
		require.Contains(t, []int64{0, max(d.Rounding.Step, 1)}, price[domain.RoundUp]-price[domain.RoundDown])
	})
}

func TestPropertyDerivedPriceRoundsAtEveryLevel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		root := rapid.Int64Range(0, domain.MaxRatePrice).Draw(t, "root")
		levels := rapid.IntRange(0, domain.MaxDerivationDepth-1).Draw(t, "levels")
		chain := make([]domain.Derivation, levels)
		want, ok := root, true
		for i := range chain {
			dd := drawDerivation(t, fmt.Sprint("level ", i))
			chain[i] = dd.d
			if ok && want > domain.MaxRatePrice {
				ok = false // beyond what derivation takes as a parent
			}
			if ok {
				want, ok = refApply(want, dd.bp, dd.amount, dd.d.Rounding)
			}
		}
		got, err := domain.DerivedPrice(root, chain)
		if !ok {
			require.ErrorIs(t, err, domain.ErrInvalid)
			return
		}
		require.NoError(t, err)
		require.Equal(t, want, got)
	})
}

// plans is a parent graph: plans[code] is code's derivation; a code not in it is a root.
type plans map[string]domain.Derivation

func (p plans) parentOf(code string) (domain.Derivation, bool) {
	d, ok := p[code]
	return d, ok
}

func line(n int) plans { // p0 <- p1 <- ... <- p(n-1)
	p := plans{}
	for i := 1; i < n; i++ {
		p[fmt.Sprint("p", i)] = domain.Derivation{Parent: fmt.Sprint("p", i-1), Percent: "-5"}
	}
	return p
}

func TestDerivationChainEdges(t *testing.T) {
	chain, err := domain.DerivationChain("p7", line(domain.MaxDerivationDepth).parentOf)
	require.NoError(t, err)
	assert.Equal(t, []string{"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"}, chain, "eight plans, root included")
	_, err = domain.DerivationChain("p8", line(domain.MaxDerivationDepth+1).parentOf)
	assert.ErrorIs(t, err, domain.ErrInvalid)
	assert.ErrorContains(t, err, "more than 8 plans")

	chain, err = domain.DerivationChain("bar", plans{}.parentOf)
	require.NoError(t, err)
	assert.Equal(t, []string{"bar"}, chain, "a plan that is not derived is its own chain")
	chain, err = domain.DerivationChain("p1", plans{"p1": {Parent: "gone"}}.parentOf)
	require.NoError(t, err)
	assert.Equal(t, []string{"gone", "p1"}, chain, "a parent parentOf does not know is a root")

	_, err = domain.DerivationChain("a", plans{"a": {Parent: "a"}}.parentOf)
	assert.ErrorIs(t, err, domain.ErrInvalid)
	assert.ErrorContains(t, err, "cycle: a -> a")
	_, err = domain.DerivationChain("x", plans{"x": {Parent: "a"}, "a": {Parent: "b"}, "b": {Parent: "a"}}.parentOf)
	assert.ErrorContains(t, err, "cycle: a -> b -> a", "the cycle named, not the plan leading into it")

	ring := line(domain.MaxDerivationDepth)
	ring["p0"] = domain.Derivation{Parent: "p7"}
	_, err = domain.DerivationChain("p7", ring.parentOf)
	assert.ErrorContains(t, err, "cycle: p7 -> p6 -> p5 -> p4 -> p3 -> p2 -> p1 -> p0 -> p7")
	ring = line(domain.MaxDerivationDepth + 1)
	ring["p0"] = domain.Derivation{Parent: "p8"}
	_, err = domain.DerivationChain("p8", ring.parentOf)
	assert.ErrorContains(t, err, "more than 8 plans", "a cycle longer than the depth is too deep first")
}

func TestPropertyDerivationChainFindsEveryCycle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 3*domain.MaxDerivationDepth).Draw(t, "plans")
		code := func(i int) string { return fmt.Sprint("p", i) }
		graph := plans{}
		for i := range n {
			// -2: a root; -1: derived from a plan parentOf does not know; else from plan j.
			j := rapid.OneOf(rapid.IntRange(-2, n-1), rapid.Just(i+1)).Draw(t, code(i)+"'s parent")
			switch {
			case j == -1 || j == n:
				graph[code(i)] = domain.Derivation{Parent: "gone"}
			case j >= 0:
				graph[code(i)] = domain.Derivation{Parent: code(j)}
			}
		}
		for i := range n {
			// The whole walk up from the plan, unbounded: it ends at a root or closes a cycle.
			path := []string{code(i)}
			cycleAt := -1
			for {
				d, derived := graph.parentOf(path[len(path)-1])
				if !derived {
					break
				}
				if cycleAt = slices.Index(path, d.Parent); cycleAt >= 0 {
					break
				}
				path = append(path, d.Parent)
			}
			chain, err := domain.DerivationChain(code(i), graph.parentOf)
			switch {
			case len(path) > domain.MaxDerivationDepth:
				require.ErrorIs(t, err, domain.ErrInvalid, "%s: %v", code(i), path)
				require.ErrorContains(t, err, "more than 8 plans")
			case cycleAt >= 0:
				require.ErrorIs(t, err, domain.ErrInvalid, "%s: %v", code(i), path)
				require.ErrorContains(t, err, "cycle: "+strings.Join(append(path[cycleAt:], path[cycleAt]), " -> "))
			default:
				require.NoError(t, err)
				slices.Reverse(path)
				require.Equal(t, path, chain)
				require.LessOrEqual(t, len(chain), domain.MaxDerivationDepth)
			}
		}
	})
}
