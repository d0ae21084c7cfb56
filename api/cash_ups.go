package api

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// Cash-ups (issue 39, Finance): a cashier's shift at a site, what the ledger expects of it per
// desk method and currency, and its close with what was counted. A front desk previews, closes,
// lists and notes its own shifts at its own sites; finance and admins any cashier's anywhere.

// cashUpSite is the site of the path's siteId (a hotel's or a venue's id) that the caller may
// work on: a front desk's own (403 otherwise, before the site is looked up), any for finance and
// admins. It returns whether the caller acts for any cashier (finance, admin) and the site's zone.
func (s *Server) cashUpSite(c echo.Context) (db.Site, *time.Location, bool, error) {
	id, p := c.Param("siteId"), principal(c)
	if err := domain.ValidateID("siteId", id); err != nil {
		return db.Site{}, nil, false, err
	}
	anyCashier := p.Has(domain.RoleFinance, domain.RoleAdmin)
	if !anyCashier && !slices.Contains(p.Hotels, id) && !slices.Contains(p.Venues, id) {
		return db.Site{}, nil, false, newError(http.StatusForbidden, "forbidden", "your token does not name site %s", id)
	}
	site, loc, err := s.store.SiteByID(c.Request().Context(), id)
	if err != nil {
		return site, loc, anyCashier, err
	}
	if !anyCashier && !p.CanBook(site.HotelID) && !p.CanBookVenue(site.VenueID) {
		return site, loc, anyCashier, newError(http.StatusForbidden, "forbidden", "your token does not name site %s", id)
	}
	return site, loc, anyCashier, nil
}

// cashierOf is the cashier a request is about: the one it names, by default the caller; a front
// desk may name only itself (403).
func cashierOf(c echo.Context, named string, anyCashier bool) (string, error) {
	me := principal(c).Subject
	cashier := cmp.Or(named, me)
	if !anyCashier && cashier != me {
		return "", newError(http.StatusForbidden, "forbidden", "a front desk cashes up its own shift, not %s's", cashier)
	}
	return cashier, domain.ValidateSubject("cashier", cashier)
}

// shiftTimes reads a shift's from and to (RFC 3339 timestamps).
func shiftTimes(from, to string) (time.Time, time.Time, error) {
	f, err := time.Parse(time.RFC3339Nano, from)
	if err != nil {
		return f, f, fmt.Errorf("%w: from %q is not an RFC 3339 time", domain.ErrInvalid, from)
	}
	t, err := time.Parse(time.RFC3339Nano, to)
	if err != nil {
		return f, t, fmt.Errorf("%w: to %q is not an RFC 3339 time", domain.ErrInvalid, to)
	}
	return f, t, nil
}

// cashUpPreview answers what a cashier's shift expects, per desk method and currency.
func (s *Server) cashUpPreview(c echo.Context) error {
	site, loc, anyCashier, err := s.cashUpSite(c)
	if err != nil {
		return err
	}
	cashier, err := cashierOf(c, c.QueryParam("cashier"), anyCashier)
	if err != nil {
		return err
	}
	from, to, err := shiftTimes(c.QueryParam("from"), c.QueryParam("to"))
	if err != nil {
		return err
	}
	lines, err := s.store.CashUpExpected(c.Request().Context(), db.CashUpShift{Site: site, Cashier: cashier, From: from, To: to})
	if err != nil {
		return err
	}
	kind, id := site.KindAndID()
	return c.JSON(http.StatusOK, map[string]any{"siteKind": kind, "siteId": id, "timeZone": loc.String(), "cashier": cashier,
		"from": from, "to": to, "countedMethods": db.CountedMethods, "lines": lines})
}

// cashUpBody closes a shift with what was counted.
type cashUpBody struct {
	Cashier string         `json:"cashier"`
	From    string         `json:"from"`
	To      string         `json:"to"`
	Counted []db.CashCount `json:"counted"`
	Note    string         `json:"note"`
}

// closeCashUp closes a shift (201; 200 with the cash-up it closed when sent again under its
// Idempotency-Key). Audited by the store, in the close's transaction.
func (s *Server) closeCashUp(c echo.Context) error {
	key := c.Request().Header.Get("Idempotency-Key")
	if err := domain.ValidateIdempotencyKey(key); err != nil {
		return err
	}
	site, _, anyCashier, err := s.cashUpSite(c)
	if err != nil {
		return err
	}
	var body cashUpBody
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if domain.Longer(body.Note, 500) || len(body.Counted) > 20 {
		return newError(http.StatusBadRequest, "invalid_request", "note is at most 500 characters, counted 20 lines")
	}
	cashier, err := cashierOf(c, body.Cashier, anyCashier)
	if err != nil {
		return err
	}
	from, to, err := shiftTimes(body.From, body.To)
	if err != nil {
		return err
	}
	u, fresh, err := s.store.CloseCashUp(c.Request().Context(), db.CloseCashUp{
		CashUpShift: db.CashUpShift{Site: site, Cashier: cashier, From: from, To: to}, Counted: body.Counted,
		Note: body.Note, Key: key, ClosedBy: principal(c).Subject})
	if err != nil {
		return err
	}
	if !fresh {
		return c.JSON(http.StatusOK, u)
	}
	return c.JSON(http.StatusCreated, u)
}

// listCashUps lists a site's cash-ups whose shift overlaps a local day (date, today there by
// default): a front desk's own, or any cashier's (?cashier narrows them) for finance and admins.
func (s *Server) listCashUps(c echo.Context) error {
	site, loc, anyCashier, err := s.cashUpSite(c)
	if err != nil {
		return err
	}
	cashier := c.QueryParam("cashier")
	if !anyCashier || cashier != "" {
		if cashier, err = cashierOf(c, cashier, anyCashier); err != nil {
			return err
		}
	}
	date := domain.DateOf(s.cfg.Now(), loc)
	if v := c.QueryParam("date"); v != "" {
		if date, err = domain.ParseDate(v); err != nil {
			return fmt.Errorf("date: %w", err)
		}
	}
	day := domain.DayBounds(date, loc)
	ups, err := s.store.CashUps(c.Request().Context(), site, day.Start, day.End, cashier)
	if err != nil {
		return err
	}
	kind, id := site.KindAndID()
	return c.JSON(http.StatusOK, map[string]any{"siteKind": kind, "siteId": id, "timeZone": loc.String(), "date": date,
		"cashUps": ups})
}

// cashUpNoteBody is a note added to a closed cash-up.
type cashUpNoteBody struct {
	Note string `json:"note"`
}

// addCashUpNote adds a note to a closed cash-up (a difference explained afterwards): finance and
// admins to any, a front desk to its own. The cash-up itself never changes. Audited.
func (s *Server) addCashUpNote(c echo.Context) error {
	site, _, anyCashier, err := s.cashUpSite(c)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(c.Param("cashUpId"), 10, 64)
	if err != nil || id < 1 {
		return fmt.Errorf("%w: cashUpId is a cash-up's number", domain.ErrInvalid)
	}
	var body cashUpNoteBody
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if body.Note == "" || domain.Longer(body.Note, 500) {
		return newError(http.StatusBadRequest, "invalid_request", "note is 1 to 500 characters")
	}
	ctx := c.Request().Context()
	u, err := s.store.GetCashUp(ctx, site, id)
	if err != nil {
		return err
	}
	if _, err := cashierOf(c, u.Cashier, anyCashier); err != nil {
		return err
	}
	if u, err = s.store.AddCashUpNote(ctx, site, id, body.Note, principal(c).Subject); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, u)
}
