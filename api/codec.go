package api

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
	commonpb "go.temporal.io/api/common/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/bookflow/bookflow/domain"
)

// codecPath is where the Temporal UI's codec server setting points (it adds /decode and
// /encode); codecMaxBytes bounds one call, which may carry a whole history page's payloads.
const (
	codecPath     = "/api/v1/staff/codec"
	codecMaxBytes = 4 << 20
)

// codec opens (decode) or seals (encode) Temporal payloads with the deployment's payload keys
// (codec.Keys), for the Temporal UI and the CLI's codec setting: staff see what the workflows
// hold, Temporal's own store only ciphertext. Payloads never sealed pass unchanged.
func (s *Server) codec(open bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		body, err := io.ReadAll(http.MaxBytesReader(c.Response(), c.Request().Body, codecMaxBytes))
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return newError(http.StatusRequestEntityTooLarge, "request_entity_too_large", "at most %d bytes of payloads at once", codecMaxBytes)
		}
		if err != nil {
			return err
		}
		var in commonpb.Payloads
		if err := protojson.Unmarshal(body, &in); err != nil {
			return newError(http.StatusBadRequest, "invalid_request", "the body is not Temporal payloads in JSON ({\"payloads\": [...]}): %v", err)
		}
		c.Set(codecPayloadsKey, len(in.Payloads))
		out := in.Payloads
		if s.cfg.PayloadKeys != nil {
			if open {
				out, err = s.cfg.PayloadKeys.Codec().Decode(in.Payloads)
			} else {
				out, err = s.cfg.PayloadKeys.Codec().Encode(in.Payloads)
			}
			if err != nil {
				return newError(http.StatusUnprocessableEntity, "payload_not_opened", "%v", err)
			}
		}
		raw, err := protojson.Marshal(&commonpb.Payloads{Payloads: out})
		if err != nil {
			return err
		}
		c.Response().Header().Set("Cache-Control", "no-store")
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, raw)
	}
}

// customerSearchKey answers the key the CustomerId search attribute holds for a customer, and
// the Temporal UI query that finds their bookings.
func (s *Server) customerSearchKey(c echo.Context) error {
	// Echo leaves an escaped path's parameters escaped (encodeURIComponent's walk-in%3A%2B49...).
	id, err := url.PathUnescape(c.Param("customerId"))
	if err != nil {
		return fmt.Errorf("%w: customerId is not a valid escaped path segment", domain.ErrInvalid)
	}
	if phone, walkIn := strings.CutPrefix(id, domain.WalkInPrefix); walkIn {
		// As the desk typed it: the walk-in's id is the normalised number's.
		if phone, err = domain.NormalisePhone(phone); err != nil {
			return err
		}
		id = domain.WalkInPrefix + phone
	}
	if err := domain.ValidateSubject("customerId", id); err != nil {
		return err
	}
	key := domain.CustomerSearchKey(s.cfg.BookingIDKey, id)
	return c.JSON(http.StatusOK, map[string]string{"customerId": id, "searchKey": key,
		"query": `CustomerId="` + key + `"`})
}
