package main

import (
	"fmt"
	"time"
)

// moneyFigure is one figure of an operation, per operation.
type moneyFigure struct {
	name string
	of   func(opRound) float64
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func (r opRound) perOp(total float64) float64 {
	if r.res.ok == 0 {
		return 0
	}
	return total / float64(r.res.ok)
}

var moneyFigures = []moneyFigure{
	{"PG CPU-ms", func(r opRound) float64 { return ms(r.pgCPU) }},
	{"statements ms", func(r opRound) float64 { return r.perOp(r.stats.activeMs) }},
	{"transactions", func(r opRound) float64 { return r.perOp(r.stats.xacts) }},
	{"rows written", func(r opRound) float64 { return r.perOp(r.stats.wrote) }},
	{"Temporal CPU-ms", func(r opRound) float64 { return ms(r.cpu["Temporal"]) }},
	{"worker CPU-ms", func(r opRound) float64 { return ms(r.cpu["worker"]) }},
	{"API CPU-ms", func(r opRound) float64 { return ms(r.cpu["API"]) }},
	{"p50 ms", func(r opRound) float64 { return ms(r.res.pct(0.5)) }},
}

// printOpRound prints one operation's round.
func printOpRound(name string, r opRound) {
	fmt.Printf("  %s %5.0f/s p50 %6.1f ms ok %4d failed %d | PG CPU %5.2f ms, statements %5.2f ms, %4.1f xacts, %5.1f rows"+
		" | CPU-ms API %5.2f worker %5.2f Temporal %6.2f | polls %d (%.2f ms/op)", name, r.res.rate(), ms(r.res.pct(0.5)),
		r.res.ok, r.res.fails, ms(r.pgCPU), r.perOp(r.stats.activeMs), r.perOp(r.stats.xacts), r.perOp(r.stats.wrote),
		ms(r.cpu["API"]), ms(r.cpu["worker"]), ms(r.cpu["Temporal"]), r.polls, r.pollMs)
	if r.gone > 0 {
		fmt.Printf(" | %d backends ended (their CPU is not counted)", r.gone)
	}
	fmt.Println()
	if r.res.firstErr != nil {
		fmt.Printf("    first failure: %v\n", r.res.firstErr)
	}
}

// printMoneySummary prints each figure's median on each build and the ratio current/baseline
// as the median and range of each round's, then the booking's totals and the goals.
func printMoneySummary(rounds map[string][]map[string]opRound, n int) {
	fmt.Printf("\n  Per operation, the median of %d rounds, and current/baseline as the median (range) of each round's ratio:\n", n)
	fmt.Printf("    %-16s %-16s %10s %10s   %s\n", "", "", "baseline", "current", "current/baseline")
	ratios := map[string][]float64{} // by operation and figure
	row := func(op, figure string, base, cur []float64) {
		var ratio []float64
		for i := range min(len(base), len(cur)) {
			if base[i] > 0 {
				ratio = append(ratio, cur[i]/base[i])
			}
		}
		ratios[op+"/"+figure] = ratio
		fmt.Printf("    %-16s %-16s %10.2f %10.2f   %s\n", op, figure, median(base), median(cur), medianRange(ratio))
	}
	each := func(build, op string, f moneyFigure) []float64 {
		var v []float64
		for _, r := range rounds[build] {
			v = append(v, f.of(r[op]))
		}
		return v
	}
	for _, op := range moneyOps {
		for _, f := range moneyFigures {
			row(op, f.name, each("baseline", op, f), each("current", op, f))
		}
	}
	// A booking: the three operations summed, round by round.
	for _, name := range []string{"PG CPU-ms", "statements ms", "Temporal CPU-ms"} {
		var f moneyFigure
		for _, g := range moneyFigures {
			if g.name == name {
				f = g
			}
		}
		sum := func(build string) []float64 {
			var v []float64
			for _, r := range rounds[build] {
				t := 0.0
				for _, op := range moneyOps {
					t += f.of(r[op])
				}
				v = append(v, t)
			}
			return v
		}
		row("booking (all 3)", name, sum("baseline"), sum("current"))
	}
	goal := func(v []float64, most float64) string {
		within := 0
		for _, x := range v {
			if x <= most {
				within++
			}
		}
		verdict := "NOT MET"
		if median(v) <= most {
			verdict = "met"
		}
		return fmt.Sprintf("%s by the median (%d of %d rounds at most %.2fx)", verdict, within, len(v), most)
	}
	fmt.Printf("\n  Goals (issue 34):\n")
	for _, op := range moneyOps {
		fmt.Printf("    %-15s PG CPU %s, statements %s, Temporal %s\n", op+":", medianRange(ratios[op+"/PG CPU-ms"]),
			medianRange(ratios[op+"/statements ms"]), medianRange(ratios[op+"/Temporal CPU-ms"]))
	}
	fmt.Printf("    the hold's cost unchanged: judge by the spread above (no threshold is given)\n")
	fmt.Printf("    a confirmation's database time at most 1.2x: PG CPU %s; statements %s\n",
		goal(ratios["confirmation/PG CPU-ms"], 1.2), goal(ratios["confirmation/statements ms"], 1.2))
}
