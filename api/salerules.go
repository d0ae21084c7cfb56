package api

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// maxBatch bounds what one batch call creates or changes.
const maxBatch = 500

// mayManageRules answers 403 unless the caller may change the hotel's sale rules, allocations
// and thresholds: an admin, or staff of the hotel's supplier.
func (s *Server) mayManageRules(c echo.Context, hotelIDs ...string) error {
	p := principal(c)
	if p.Has(domain.RoleAdmin) {
		return nil
	}
	for _, h := range hotelIDs {
		sup, err := s.store.HotelSupplier(c.Request().Context(), h)
		if err != nil {
			return err
		}
		if !p.CanManageRules(sup.ID) {
			return newError(http.StatusForbidden, "forbidden", "hotel %s is not supplied by a supplier you work for", h)
		}
	}
	return nil
}

// decodeRule reads a rule from the body: its id, hotel and author come from the path and token.
func decodeRule(c echo.Context) (domain.SaleRule, error) {
	var r domain.SaleRule
	if err := decodeJSON(c, &r); err != nil {
		return r, err
	}
	if r.ID != 0 || r.SetBy != "" {
		return r, fmt.Errorf("%w: id and setBy are not sent: they are given", domain.ErrInvalid)
	}
	r.SetBy = principal(c).Subject
	return r, nil
}

// ruleForHotel checks a rule sent for the hotel in the path.
func ruleForHotel(r domain.SaleRule, hotelID string) (domain.SaleRule, error) {
	if r.HotelID != "" && r.HotelID != hotelID {
		return r, fmt.Errorf("%w: hotelId in the body must match the path or be left out", domain.ErrInvalid)
	}
	r.HotelID = hotelID
	return r, r.Validate()
}

// listSaleRules lists a hotel's rules in force (?kind= one kind; ?ended=true with the cancelled
// and expired ones).
func (s *Server) listSaleRules(c echo.Context) error {
	hotelID := c.Param("hotelId")
	if err := s.mayManageRules(c, hotelID); err != nil {
		return err
	}
	kind := domain.RuleKind(c.QueryParam("kind"))
	if kind != "" && !isRuleKind(kind) {
		return fmt.Errorf("%w: kind must be one of %v", domain.ErrInvalid, domain.RuleKinds)
	}
	rules, err := s.store.SaleRules(c.Request().Context(), db.SaleRuleFilter{HotelID: hotelID, Kind: kind,
		Ended: c.QueryParam("ended") == "true"})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"rules": rules})
}

func isRuleKind(k domain.RuleKind) bool {
	for _, kind := range domain.RuleKinds {
		if k == kind {
			return true
		}
	}
	return false
}

// createSaleRule adds one rule to a hotel; it applies from the moment it is answered.
func (s *Server) createSaleRule(c echo.Context) error {
	hotelID := c.Param("hotelId")
	if err := s.mayManageRules(c, hotelID); err != nil {
		return err
	}
	r, err := decodeRule(c)
	if err != nil {
		return err
	}
	if r, err = ruleForHotel(r, hotelID); err != nil {
		return err
	}
	stored, err := s.store.CreateSaleRules(c.Request().Context(), []domain.SaleRule{r})
	if err != nil {
		return err
	}
	s.meta.forget()
	if err := s.audit(c, "create-sale-rule", "", "", map[string]any{"rule": stored[0]}); err != nil {
		return err
	}
	return created(c, saleRuleLocation(stored[0]), stored[0])
}

// dateRange is one [from, to) of a batch.
type dateRange struct {
	From domain.Date `json:"from"`
	To   domain.Date `json:"to"`
}

// batchScope is what a batch call applies to: every hotel, each room type (none: the whole
// hotel) and each date range (none: the rule's own dates).
type batchScope struct {
	HotelIDs    []string    `json:"hotelIds"`
	RoomTypeIDs []string    `json:"roomTypeIds"`
	Ranges      []dateRange `json:"ranges"`
}

func (b batchScope) size() int {
	return len(b.HotelIDs) * max(len(b.RoomTypeIDs), 1) * max(len(b.Ranges), 1)
}

func (b batchScope) validate() error {
	switch {
	case len(b.HotelIDs) == 0:
		return fmt.Errorf("%w: hotelIds must name at least one hotel", domain.ErrInvalid)
	case b.size() > maxBatch:
		return fmt.Errorf("%w: one batch may make at most %d changes (hotels x room types x ranges)", domain.ErrInvalid, maxBatch)
	}
	return nil
}

// createSaleRulesBatch adds one rule to every hotel, room type and date range named, all or
// none.
func (s *Server) createSaleRulesBatch(c echo.Context) error {
	var body struct {
		Rule domain.SaleRule `json:"rule"`
		batchScope
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if err := body.validate(); err != nil {
		return err
	}
	if body.Rule.ID != 0 || body.Rule.SetBy != "" || body.Rule.HotelID != "" {
		return fmt.Errorf("%w: the batch's rule names no id, setBy or hotelId", domain.ErrInvalid)
	}
	if err := s.mayManageRules(c, body.HotelIDs...); err != nil {
		return err
	}
	body.Rule.SetBy = principal(c).Subject
	var rules []domain.SaleRule
	for _, h := range body.HotelIDs {
		for _, rt := range orAll(body.RoomTypeIDs) {
			for _, dr := range orAllRanges(body.Ranges) {
				r := body.Rule
				r.HotelID = h
				if rt != "" {
					r.RoomTypeID = rt
				}
				if dr != nil {
					r.From, r.To = dr.From, dr.To
				}
				if err := r.Validate(); err != nil {
					return err
				}
				rules = append(rules, r)
			}
		}
	}
	stored, err := s.store.CreateSaleRules(c.Request().Context(), rules)
	if err != nil {
		return err
	}
	s.meta.forget()
	if err := s.audit(c, "create-sale-rules", "", "", map[string]any{"rule": body.Rule, "scope": body.batchScope,
		"created": len(stored)}); err != nil {
		return err
	}
	// A batch names at least one hotel, so it stores at least one rule; it has no URL of its own,
	// so Location names its first.
	return created(c, saleRuleLocation(stored[0]), map[string]any{"rules": stored})
}

// saleRuleLocation is a stored sale rule's URL (replaced and ended there).
func saleRuleLocation(r domain.SaleRule) string {
	return fmt.Sprintf("/api/v1/admin/sale-rules/%d", r.ID)
}

// orAll is the room types of a batch, or one empty entry (the whole hotel) when none are named.
func orAll(ids []string) []string {
	if len(ids) == 0 {
		return []string{""}
	}
	return ids
}

func orAllRanges(rs []dateRange) []*dateRange {
	if len(rs) == 0 {
		return []*dateRange{nil}
	}
	out := make([]*dateRange, len(rs))
	for i := range rs {
		out[i] = &rs[i]
	}
	return out
}

// saleRuleInPath loads the rule the path names, for a caller who may manage it.
func (s *Server) saleRuleInPath(c echo.Context) (domain.SaleRule, error) {
	id, err := strconv.ParseInt(c.Param("ruleId"), 10, 64)
	if err != nil || id < 1 {
		return domain.SaleRule{}, newError(http.StatusNotFound, "not_found", "no sale rule %q", c.Param("ruleId"))
	}
	r, err := s.store.GetSaleRule(c.Request().Context(), id)
	if err != nil {
		return r, err
	}
	return r, s.mayManageRules(c, r.HotelID)
}

// replaceSaleRule changes a rule in force; its kind and hotel stay.
func (s *Server) replaceSaleRule(c echo.Context) error {
	old, err := s.saleRuleInPath(c)
	if err != nil {
		return err
	}
	r, err := decodeRule(c)
	if err != nil {
		return err
	}
	if r.Kind != "" && r.Kind != old.Kind {
		return fmt.Errorf("%w: a rule's kind does not change; end it and create another", domain.ErrInvalid)
	}
	r.Kind = old.Kind
	if r, err = ruleForHotel(r, old.HotelID); err != nil {
		return err
	}
	stored, err := s.store.ReplaceSaleRule(c.Request().Context(), old.ID, r)
	if err != nil {
		return err
	}
	s.meta.forget()
	if err := s.audit(c, "replace-sale-rule", "", "", map[string]any{"before": old, "after": stored}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, stored)
}

// endSaleRule ends a rule in force (a cancelled stop-sell is sellable again at once); the rule is
// kept for the record.
func (s *Server) endSaleRule(c echo.Context) error {
	r, err := s.saleRuleInPath(c)
	if err != nil {
		return err
	}
	if err := s.store.EndSaleRule(c.Request().Context(), r.ID); err != nil {
		return err
	}
	s.meta.forget()
	if err := s.audit(c, "end-sale-rule", "", "", map[string]any{"rule": r}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"id": r.ID, "ended": true})
}

type allocationBody struct {
	ChannelID string      `json:"channelId"`
	AgentID   string      `json:"agentId"` // one agent of the channel; empty: the channel's own
	From      domain.Date `json:"from"`
	To        domain.Date `json:"to"`
	Allotted  *int        `json:"allotted"`
}

func (b allocationBody) validate() error {
	if err := validateAllocationOf(b.ChannelID, b.AgentID); err != nil {
		return err
	}
	if b.Allotted == nil || *b.Allotted < 0 || *b.Allotted > maxTotalRooms {
		return fmt.Errorf("%w: allotted must be between 0 and %d", domain.ErrInvalid, maxTotalRooms)
	}
	return nil
}

// setAllocation gives a channel its allocation of a room type on the nights [from, to).
func (s *Server) setAllocation(c echo.Context) error {
	hotelID, roomTypeID := c.Param("hotelId"), c.Param("roomTypeId")
	if err := s.mayManageRules(c, hotelID); err != nil {
		return err
	}
	var body allocationBody
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if err := body.validate(); err != nil {
		return err
	}
	if err := validateRange(domain.Stay{CheckIn: body.From, CheckOut: body.To}); err != nil {
		return err
	}
	set := db.AllocationSet{HotelID: hotelID, RoomTypeID: roomTypeID, ChannelID: body.ChannelID, AgentID: body.AgentID,
		From: body.From, To: body.To, Allotted: *body.Allotted}
	return s.applyAllocations(c, []db.AllocationSet{set}, body)
}

// setAllocationsBatch gives a channel its allocation on every hotel, room type and range named,
// all or none.
func (s *Server) setAllocationsBatch(c echo.Context) error {
	var body struct {
		ChannelID string `json:"channelId"`
		AgentID   string `json:"agentId"`
		Allotted  *int   `json:"allotted"`
		batchScope
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if err := (allocationBody{ChannelID: body.ChannelID, AgentID: body.AgentID, Allotted: body.Allotted}).validate(); err != nil {
		return err
	}
	if err := body.validate(); err != nil {
		return err
	}
	if len(body.RoomTypeIDs) == 0 || len(body.Ranges) == 0 {
		return fmt.Errorf("%w: an allocation names its roomTypeIds and ranges", domain.ErrInvalid)
	}
	if err := s.mayManageRules(c, body.HotelIDs...); err != nil {
		return err
	}
	var sets []db.AllocationSet
	for _, h := range body.HotelIDs {
		for _, rt := range body.RoomTypeIDs {
			for _, r := range body.Ranges {
				if err := validateRange(domain.Stay{CheckIn: r.From, CheckOut: r.To}); err != nil {
					return err
				}
				sets = append(sets, db.AllocationSet{HotelID: h, RoomTypeID: rt, ChannelID: body.ChannelID,
					AgentID: body.AgentID, From: r.From, To: r.To, Allotted: *body.Allotted})
			}
		}
	}
	return s.applyAllocations(c, sets, body)
}

func (s *Server) applyAllocations(c echo.Context, sets []db.AllocationSet, request any) error {
	if err := s.store.SetAllocations(c.Request().Context(), sets); err != nil {
		return err
	}
	if err := s.audit(c, "set-allocations", "", "", map[string]any{"request": request, "sets": len(sets)}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"allocations": sets})
}

// listAllocations shows how a room type's nights in [from, to) are split between channels.
func (s *Server) listAllocations(c echo.Context) error {
	hotelID, roomTypeID := c.Param("hotelId"), c.Param("roomTypeId")
	if err := s.mayManageRules(c, hotelID); err != nil {
		return err
	}
	span, err := queryRange(c)
	if err != nil {
		return err
	}
	nights, err := s.store.Allocations(c.Request().Context(), hotelID, roomTypeID, span.CheckIn, span.CheckOut)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"hotelId": hotelID, "roomTypeId": roomTypeID, "nights": nights})
}

// queryRange reads ?from=&to= as a range of nights.
func queryRange(c echo.Context) (domain.Stay, error) {
	from, err := domain.ParseDate(c.QueryParam("from"))
	if err != nil {
		return domain.Stay{}, fmt.Errorf("from: %w", err)
	}
	to, err := domain.ParseDate(c.QueryParam("to"))
	if err != nil {
		return domain.Stay{}, fmt.Errorf("to: %w", err)
	}
	span := domain.Stay{CheckIn: from, CheckOut: to}
	return span, validateRange(span)
}

// setStockAlertThreshold raises a low-stock alert when a sale leaves fewer than threshold rooms
// of the room type on a night (0 removes it).
func (s *Server) setStockAlertThreshold(c echo.Context) error {
	hotelID, roomTypeID := c.Param("hotelId"), c.Param("roomTypeId")
	if err := s.mayManageRules(c, hotelID); err != nil {
		return err
	}
	var body struct {
		Threshold *int `json:"threshold"`
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if body.Threshold == nil || *body.Threshold < 0 || *body.Threshold > maxTotalRooms {
		return fmt.Errorf("%w: threshold must be between 0 (none) and %d", domain.ErrInvalid, maxTotalRooms)
	}
	return s.applyThresholds(c, []string{hotelID}, []string{roomTypeID}, *body.Threshold)
}

// listStockAlertThresholds lists a hotel's low-stock thresholds by room type.
func (s *Server) listStockAlertThresholds(c echo.Context) error {
	hotelID := c.Param("hotelId")
	if err := s.mayManageRules(c, hotelID); err != nil {
		return err
	}
	thresholds, err := s.store.StockAlertThresholds(c.Request().Context(), hotelID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"hotelId": hotelID, "thresholds": thresholds})
}

// setStockAlertThresholdsBatch sets one threshold on every hotel and room type named.
func (s *Server) setStockAlertThresholdsBatch(c echo.Context) error {
	var body struct {
		Threshold *int `json:"threshold"`
		batchScope
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if err := body.validate(); err != nil {
		return err
	}
	switch {
	case body.Threshold == nil || *body.Threshold < 0 || *body.Threshold > maxTotalRooms:
		return fmt.Errorf("%w: threshold must be between 0 (none) and %d", domain.ErrInvalid, maxTotalRooms)
	case len(body.RoomTypeIDs) == 0 || len(body.Ranges) > 0:
		return fmt.Errorf("%w: a threshold names its roomTypeIds, and no ranges", domain.ErrInvalid)
	}
	if err := s.mayManageRules(c, body.HotelIDs...); err != nil {
		return err
	}
	return s.applyThresholds(c, body.HotelIDs, body.RoomTypeIDs, *body.Threshold)
}

func (s *Server) applyThresholds(c echo.Context, hotels, roomTypes []string, threshold int) error {
	if err := s.store.SetStockAlertThresholds(c.Request().Context(), hotels, roomTypes, threshold); err != nil {
		return err
	}
	if err := s.audit(c, "set-stock-alert-thresholds", "", "", map[string]any{"hotelIds": hotels,
		"roomTypeIds": roomTypes, "threshold": threshold}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"hotelIds": hotels, "roomTypeIds": roomTypes, "threshold": threshold})
}

// listStockAlerts lists the open stock alerts (?resolved=true: all), newest first, optionally of
// one hotel.
func (s *Server) listStockAlerts(c echo.Context) error {
	hotelID := c.QueryParam("hotelId")
	if hotelID != "" {
		if err := domain.ValidateID("hotelId", hotelID); err != nil {
			return err
		}
	}
	alerts, err := s.store.StockAlerts(c.Request().Context(), hotelID, c.QueryParam("resolved") == "true", 500)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"alerts": alerts})
}

// resolveStockAlert closes an open alert once someone looked at it.
func (s *Server) resolveStockAlert(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("alertId"), 10, 64)
	if err != nil || id < 1 {
		return newError(http.StatusNotFound, "not_found", "no stock alert %q", c.Param("alertId"))
	}
	if err := s.store.ResolveStockAlert(c.Request().Context(), id); err != nil {
		return err
	}
	if err := s.audit(c, "resolve-stock-alert", "", "", map[string]any{"alertId": id}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"id": id, "resolved": true})
}
