package console

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

func date(t *testing.T, s string) domain.Date {
	t.Helper()
	d, err := domain.ParseDate(s)
	require.NoError(t, err)
	return d
}

// The window opens on today for 14 dates unless a date and 31 are asked for; anything else is
// the default, and previous and next move by the window's length.
func TestTheGridsWindow(t *testing.T) {
	today := date(t, "2027-03-01")
	w := windowOf("", "", today)
	assert.Equal(t, []string{"2027-03-01", "2027-03-15", "2027-02-15", "2027-03-15"},
		[]string{w.From.String(), w.To.String(), w.Prev.String(), w.Next.String()})
	assert.Equal(t, 14, w.Days)
	w = windowOf("2027-04-10", "31", today)
	assert.Equal(t, []string{"2027-04-10", "2027-05-11", "2027-03-10", "2027-05-11"},
		[]string{w.From.String(), w.To.String(), w.Prev.String(), w.Next.String()})
	w = windowOf("next tuesday", "1000", today)
	assert.Equal(t, "2027-03-01", w.From.String(), "not a date: today")
	assert.Equal(t, 14, w.Days, "only 14 or 31 dates")
}

// Each row's dates become cells in the window's order, with what restricts them in a fixed order
// (closures, then stays, then advance); rows are sorted by room type, every plan's row first; a
// date the API did not answer is an empty cell.
func TestTheGridIsBuiltFromTheCalendar(t *testing.T) {
	w := windowOf("2027-03-01", "", date(t, "2027-03-01"))
	two, seven, thirty := 2, 7, 30
	rows := []db.RestrictionRow{
		{RoomTypeID: "twin", RatePlan: "NR", Days: []domain.RestrictionDay{{Date: date(t, "2027-03-01"), Closed: true}}},
		{RoomTypeID: "double", RatePlan: "", Days: []domain.RestrictionDay{
			{Date: date(t, "2027-03-02"), ClosedToArrival: true, ClosedToDeparture: true,
				RestrictionBounds: domain.RestrictionBounds{MinStay: &two, MaxStayArrival: &seven, MaxAdvance: &thirty}},
			{Date: date(t, "2027-03-20")}, // outside the window
		}},
		{RoomTypeID: "twin", RatePlan: "", Days: nil},
	}
	g := buildGrid(rows, w)
	require.Len(t, g.Dates, 14)
	assert.Equal(t, "2027-03-01", g.Dates[0].Date.String())
	assert.Equal(t, 1, g.Dates[0].Weekday, "2027-03-01 is a Monday")
	assert.Equal(t, 7, g.Dates[6].Weekday, "and 2027-03-07 a Sunday")

	require.Len(t, g.Rows, 3)
	assert.Equal(t, [][2]string{{"double", ""}, {"twin", ""}, {"twin", "NR"}},
		[][2]string{{g.Rows[0].RoomTypeID, g.Rows[0].RatePlan}, {g.Rows[1].RoomTypeID, g.Rows[1].RatePlan},
			{g.Rows[2].RoomTypeID, g.Rows[2].RatePlan}})
	for _, r := range g.Rows {
		require.Len(t, r.Cells, 14, "a cell for every date of the window")
	}
	double := g.Rows[0].Cells
	assert.False(t, double[0].Restricted(), "no day answered: nothing restricts it")
	assert.Equal(t, "2027-03-02", double[1].Date.String())
	assert.Equal(t, []restrictionMark{{Kind: "closedToArrival"}, {Kind: "closedToDeparture"}, {Kind: "minStay", N: "2"},
		{Kind: "maxStayArrival", N: "7"}, {Kind: "maxAdvance", N: "30"}}, double[1].Marks)
	assert.False(t, double[1].Closed)
	nr := g.Rows[2].Cells[0]
	assert.True(t, nr.Closed)
	assert.Equal(t, []restrictionMark{{Kind: "closed"}}, nr.Marks)
	assert.Empty(t, g.Rows[1].Cells[0].Marks)
}

// Every mark and every kind the form offers has its words in both languages (the templates
// complete their keys, so the catalogue test cannot see them).
func TestEveryRestrictionHasItsWords(t *testing.T) {
	for _, lang := range []string{"en", "zh-Hans"} {
		for _, k := range restrictionKinds {
			assert.Contains(t, ratesText[lang], "rates.kind."+k, lang)
			assert.Contains(t, ratesText[lang], "rates.mark."+k, lang)
		}
		for _, k := range []string{"room_only", "breakfast", "half_board", "full_board"} {
			assert.Contains(t, ratesText[lang], "rates.board."+k, lang)
		}
		for _, k := range []string{"all", "first_night", "percent"} {
			assert.Contains(t, ratesText[lang], "rates.noShowOpt."+k, lang)
		}
		for _, k := range []string{"full", "deposit", "at_hotel"} {
			assert.Contains(t, ratesText[lang], "rates.payment."+k, lang)
		}
		for _, k := range []string{"nearest", "down", "up"} {
			assert.Contains(t, ratesText[lang], "rates.rounding."+k, lang)
		}
	}
}

// After a write the grid stays on the window shown when it holds the first date written, and
// moves to that date when it does not.
func TestTheGridOpensWhereTheWriteIs(t *testing.T) {
	assert.Equal(t, "2027-03-01", shownFrom("2027-03-01", "", date(t, "2027-03-14")))
	assert.Equal(t, "2027-03-15", shownFrom("2027-03-01", "", date(t, "2027-03-15")))
	assert.Equal(t, "2027-03-01", shownFrom("2027-03-01", "31", date(t, "2027-03-31")))
	assert.Equal(t, "2027-02-27", shownFrom("2027-03-01", "", date(t, "2027-02-27")))
	assert.Equal(t, "2027-02-27", shownFrom("", "", date(t, "2027-02-27")), "no window: the date written")
}
