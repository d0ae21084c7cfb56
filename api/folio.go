package api

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// The folio (issue 39): a booking's bill as the desk prints it. Its nights (or a visit's lines)
// at their price, the extras the desk charged (db/folio.go), the payments and refunds, and what
// is due. Extras are charged and voided here; they are paid by a desk payment, like any balance.

// chargeView answers a charge made or voided: the charge, and the booking's money after it.
type chargeView struct {
	Charge db.FolioCharge  `json:"charge"`
	Money  db.MoneySummary `json:"money"`
}

// bookingFolio answers a booking's folio to any staff member who may read it.
func (s *Server) bookingFolio(c echo.Context) error {
	b, err := s.staffBooking(c, domain.Principal.CanReadAt)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	v := db.Folio{BookingID: b.ID, Status: b.Status, Price: b.Price}
	if v.Charges, err = s.store.FolioCharges(ctx, b.ID); err != nil {
		return err
	}
	if v.Payments, v.Refunds, err = s.store.BookingMoney(ctx, b.ID); err != nil {
		return err
	}
	if v.Money, err = s.store.BookingMoneySummary(ctx, b); err != nil {
		return err
	}
	guest, err := s.store.GuestOf(ctx, b)
	if err != nil {
		return err
	}
	v.GuestName = guest.Name
	return c.JSON(http.StatusOK, v)
}

// addCharge charges a booking of the desk's site an extra, under the request's Idempotency-Key.
func (s *Server) addCharge(c echo.Context) error {
	key, b, err := s.moneyRequest(c, domain.Principal.CanBookAt)
	if err != nil {
		return err
	}
	var body domain.Charge
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if err := body.Validate(); err != nil {
		return err
	}
	ctx := c.Request().Context()
	charge, again, err := s.store.AddCharge(ctx, b.ID, key, principal(c).Subject, body)
	if err != nil {
		return err
	}
	return s.answerCharge(c, b, charge, "folio-charge", charge.Description, !again, http.StatusCreated)
}

// voidBody is why a charge is voided.
type voidBody struct {
	Reason string `json:"reason"`
}

// voidCharge voids an extra of a booking of the desk's site, with a reason.
func (s *Server) voidCharge(c echo.Context) error {
	b, err := s.staffBooking(c, domain.Principal.CanBookAt)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(c.Param("chargeId"), 10, 64)
	if err != nil || id <= 0 {
		return newError(http.StatusNotFound, "not_found", "no such charge")
	}
	var body voidBody
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	charge, again, err := s.store.VoidCharge(c.Request().Context(), b.ID, id, body.Reason, principal(c).Subject)
	if err != nil {
		return err
	}
	return s.answerCharge(c, b, charge, "folio-void", body.Reason, !again, http.StatusOK)
}

// answerCharge audits a charge made or voided (unless it was asked again) and answers it with the
// booking's money.
func (s *Server) answerCharge(c echo.Context, b domain.Booking, charge db.FolioCharge, action, reason string, audit bool,
	status int) error {
	money, err := s.store.BookingMoneySummary(c.Request().Context(), b)
	if err != nil {
		return err
	}
	if !audit {
		return c.JSON(status, chargeView{Charge: charge, Money: money})
	}
	if err := s.audit(c, action, b.ID, reason, map[string]any{"chargeId": charge.ID, "kind": charge.Kind,
		"amount": charge.Amount, "currency": charge.Currency, "due": money.Due}); err != nil {
		return err
	}
	return c.JSON(status, chargeView{Charge: charge, Money: money})
}
