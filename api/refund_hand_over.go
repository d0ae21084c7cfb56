package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// handOverBody names the refund waiting at the desk that the staff member hands over.
type handOverBody struct {
	RefundID string `json:"refundId"`
	Note     string `json:"note"`
}

// handOverRefund records that the desk handed a refund waiting there over to its guest (issue 39):
// money the desk took, given back when nobody at the desk asked for it (the guest's own cancel, a
// no-show, finance), is recorded under the name of whoever hands it over, in their cash-up, and only then.
// The saga waiting for it is told at once (as by a provider's webhook); were the signal lost, its
// next look at the refund finds it handed over.
func (s *Server) handOverRefund(c echo.Context) error {
	b, err := s.staffBooking(c, domain.Principal.CanBookAt)
	if err != nil {
		return err
	}
	var body handOverBody
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	switch {
	case body.RefundID == "":
		return newError(http.StatusBadRequest, "invalid_request", "refundId names the refund handed over (its id in the booking's payments)")
	case domain.Longer(body.Note, 500):
		return newError(http.StatusBadRequest, "invalid_request", "note is at most 500 characters")
	}
	ctx := c.Request().Context()
	r, err := s.store.HandOverRefund(ctx, db.HandOver{BookingID: b.ID, RefundID: body.RefundID, By: principal(c).Subject,
		Note: body.Note})
	if err != nil {
		return err
	}
	if err := s.deliver(ctx, domain.PaymentEvent{BookingID: b.ID, PaymentID: r.PaymentID, IsRefund: true, Succeeded: true,
		RefundID: domain.DeskRefundID(r.ID), Amount: r.Amount, Currency: r.Currency}); err != nil {
		return err // recorded: a retry answers the same refund, and tells the saga again
	}
	return c.JSON(http.StatusOK, r)
}

// refundsDueAtTheDesk lists the refunds waiting at a site's desk (siteId, a hotel's or a venue's
// id), the oldest first: what the desk hands back when the guests come by. A front desk reads its
// own sites', finance and admins any site's.
func (s *Server) refundsDueAtTheDesk(c echo.Context) error {
	site, _, _, err := s.cashUpSite(c)
	if err != nil {
		return err
	}
	due, err := s.store.RefundsDueAtTheDesk(c.Request().Context(), site)
	if err != nil {
		return err
	}
	if due == nil {
		due = []db.DueRefund{} // an empty list, never null
	}
	return c.JSON(http.StatusOK, map[string]any{"refunds": due})
}
