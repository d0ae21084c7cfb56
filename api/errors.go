package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// Error is an API error: an HTTP status and the {"error": {"code", "message", "details"?}} body.
type Error struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	// Details, for some codes, is what a program needs to act on the refusal (slots_booked:
	// the bookings).
	Details any `json:"details,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func newError(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// toError maps any error to the API error it answers with; this is the only place that does.
func toError(err error) *Error {
	var apiErr *Error
	var httpErr *echo.HTTPError
	var booked *db.SlotsBookedError
	switch {
	case errors.As(err, &apiErr):
		return apiErr
	case errors.As(err, &booked):
		return &Error{Status: http.StatusConflict, Code: "slots_booked", Message: booked.Error(),
			Details: map[string]any{"bookings": booked.Bookings}}
	case errors.Is(err, domain.ErrInvalid):
		return newError(http.StatusBadRequest, "invalid_request", "%s", err.Error())
	case errors.Is(err, domain.ErrNotFound):
		return newError(http.StatusNotFound, "not_found", "%s", err.Error())
	case errors.Is(err, domain.ErrUnavailable):
		return newError(http.StatusConflict, "unavailable", "%s", err.Error())
	case errors.Is(err, domain.ErrIdempotencyMismatch):
		return newError(http.StatusUnprocessableEntity, "idempotency_key_reused", "%s", err.Error())
	case errors.Is(err, domain.ErrTooManyHolds):
		return newError(http.StatusTooManyRequests, "too_many_holds", "%s", err.Error())
	case errors.Is(err, domain.ErrConflict):
		return newError(http.StatusConflict, "conflict", "%s", err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return newError(http.StatusServiceUnavailable, "timeout", "the request took too long; it is safe to retry")
	case errors.As(err, &httpErr):
		// Echo's own errors (no route, a method not allowed, the body limit): the code is the
		// status in snake case, as every other code is.
		code := strings.ReplaceAll(strings.ToLower(http.StatusText(httpErr.Code)), " ", "_")
		msg := strings.ToLower(http.StatusText(httpErr.Code))
		if m, ok := httpErr.Message.(string); ok {
			msg = m
		}
		return newError(httpErr.Code, code, "%s", msg)
	}
	return newError(http.StatusInternalServerError, "internal", "internal error")
}

func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	apiErr := toError(err)
	if apiErr.Status >= 500 {
		s.cfg.Logger.ErrorContext(c.Request().Context(), "request failed", "method", c.Request().Method, "path", c.Path(), "err", err)
	}
	_ = c.JSON(apiErr.Status, map[string]*Error{"error": apiErr})
}

// decodeJSON reads the request body strictly: one JSON object, no unknown fields.
func decodeJSON(c echo.Context, v any) error {
	dec := json.NewDecoder(c.Request().Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooLarge *http.MaxBytesError
		var echoErr *echo.HTTPError // the body limit, met while reading a body sent without a length
		switch {
		case errors.As(err, &tooLarge), errors.As(err, &echoErr) && echoErr.Code == http.StatusRequestEntityTooLarge:
			return newError(http.StatusRequestEntityTooLarge, "body_too_large", "the request body is too large")
		case errors.Is(err, domain.ErrInvalid):
			return err
		case errors.Is(err, io.EOF):
			return fmt.Errorf("%w: the request body must be a JSON object", domain.ErrInvalid)
		}
		return fmt.Errorf("%w: malformed JSON: %s", domain.ErrInvalid, strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return fmt.Errorf("%w: the request body must hold exactly one JSON object", domain.ErrInvalid)
	}
	return nil
}
