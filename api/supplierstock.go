package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/suppliers"
)

// maxPushBytes bounds a pushed stock report: 50 room types of two years' nights fit.
const maxPushBytes = 4 << 20

// supplierPushPath is the route suppliers push stock to, signed with their push secret instead
// of a bearer token.
const supplierPushPath = "/api/v1/suppliers/:supplierId/stock"

// pushStock takes a supplier's signed stock report for one hotel. A bad signature, malformed or
// invalid data, or a hotel that is not the supplier's is 400 and writes nothing; a valid report
// is written whole (see db.Store.ApplySupplierStock: stock never drops below what is sold or
// held, and such a night raises an alert).
func (s *Server) pushStock(c echo.Context) error {
	supplierID := c.Param("supplierId")
	if err := domain.ValidateID("supplierId", supplierID); err != nil {
		return err
	}
	body, err := io.ReadAll(io.LimitReader(c.Request().Body, maxPushBytes+1))
	if err != nil {
		return err
	}
	if len(body) > maxPushBytes {
		return newError(http.StatusRequestEntityTooLarge, "body_too_large", "a stock report is at most %d bytes", maxPushBytes)
	}
	ctx := c.Request().Context()
	sup, err := s.store.GetSupplier(ctx, supplierID)
	if errors.Is(err, domain.ErrNotFound) {
		sup.PushSecret = "" // answered as a bad signature: pushes cannot probe which suppliers exist
	} else if err != nil {
		return err
	}
	if err := suppliers.Verify(body, c.Request().Header.Get(suppliers.SignatureHeader), sup.PushSecret, s.cfg.Now(),
		suppliers.DefaultTolerance); err != nil {
		return newError(http.StatusBadRequest, "bad_signature", "%s", err.Error())
	}
	var report suppliers.StockReport
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&report); err != nil || dec.More() {
		return fmt.Errorf("%w: the body must be one stock report: %v", domain.ErrInvalid, err)
	}
	if err := report.Validate(); err != nil {
		return err
	}
	yesterday := domain.DateOf(s.cfg.Now(), time.UTC).AddDays(-1) // today somewhere west of UTC
	if err := report.Within(yesterday, yesterday.AddDays(suppliers.MaxReportNights)); err != nil {
		return err
	}
	res, err := s.store.ApplySupplierStock(ctx, supplierID, "push", report)
	if err != nil {
		return err
	}
	s.meta.forget()
	s.cfg.Logger.Info("supplier stock pushed", "supplier", supplierID, "hotelId", res.HotelID, "nights", res.Nights,
		"conflicts", res.Conflicts)
	return c.JSON(http.StatusOK, res)
}

// hotelStock lists a hotel's nights in [from, to): total, sold, held, blocked, available, and
// when and from where each total came.
func (s *Server) hotelStock(c echo.Context) error {
	hotelID := c.Param("hotelId")
	if err := s.mayManageRules(c, hotelID); err != nil {
		return err
	}
	span, err := queryRange(c)
	if err != nil {
		return err
	}
	nights, err := s.store.HotelStock(c.Request().Context(), hotelID, span.CheckIn, span.CheckOut)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"hotelId": hotelID, "nights": nights})
}
