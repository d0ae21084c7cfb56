package api

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// eraseCustomer pseudonymises a customer's personal data on an admin's request, with their
// reason (docs/personal-data.md): 200 with the erasure (the pseudonym, when, by whom, the rows
// changed per table), also when asked again; 409 customer_has_open_bookings, nothing written,
// while a booking of theirs is still in play (its workflow waiting for a late payment too); 400
// for a reason that names the customer.
func (s *Server) eraseCustomer(c echo.Context) error {
	var req struct {
		Reason string `json:"reason"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	customerID := c.Param("customerId")
	if c.Request().URL.RawPath != "" {
		// Echo routes on the escaped path when there is one (a %2B or %2F in the id): its
		// parameters are still escaped then.
		id, err := url.PathUnescape(customerID)
		if err != nil {
			return fmt.Errorf("%w: customerId is not a valid path segment", domain.ErrInvalid)
		}
		customerID = id
	}
	if err := domain.ValidateErasure(customerID, req.Reason); err != nil {
		return err
	}
	e, err := s.store.EraseCustomer(c.Request().Context(), db.ErasureRequest{CustomerID: customerID,
		Pseudonym: domain.ErasurePseudonym(s.cfg.BookingIDKey, customerID), By: principal(c).Subject, Reason: req.Reason,
		LateWindow: s.cfg.LateWindow})
	var open *db.OpenBookingsError
	if errors.As(err, &open) {
		return newError(http.StatusConflict, "customer_has_open_bookings", "%s; erase once they have ended", open.Error())
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, e)
}
