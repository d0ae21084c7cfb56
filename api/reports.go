package api

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// dailyReport answers a hotel's or a venue's money over one local day, cut at its local
// midnight: JSON, or CSV (format=csv) with one row per payment or refund (the columns added
// since the first, channel_id then method, reference and taken_by, then amount as a decimal,
// guest, reason and note, come last, so the earlier ones stay where they were).
func (s *Server) dailyReport(c echo.Context) error {
	site := db.Site{HotelID: c.QueryParam("hotelId"), VenueID: c.QueryParam("venueId")}
	if (site.HotelID == "") == (site.VenueID == "") {
		return fmt.Errorf("%w: give hotelId or venueId", domain.ErrInvalid)
	}
	date, err := domain.ParseDate(c.QueryParam("date"))
	if err != nil {
		return fmt.Errorf("date: %w", err)
	}
	format := c.QueryParam("format")
	if format != "" && format != "json" && format != "csv" {
		return fmt.Errorf("%w: format is json or csv", domain.ErrInvalid)
	}
	ctx := c.Request().Context()
	var loc *time.Location
	name := site.VenueID
	if site.HotelID != "" {
		if err := domain.ValidateID("hotelId", site.HotelID); err != nil {
			return err
		}
		h, err := s.store.GetHotel(ctx, site.HotelID)
		if err != nil {
			return err
		}
		loc, name = h.Location, site.HotelID
	} else {
		if err := domain.ValidateID("venueId", site.VenueID); err != nil {
			return err
		}
		if _, loc, err = s.store.GetVenue(ctx, site.VenueID); err != nil {
			return err
		}
	}
	report, err := s.store.DailyReport(ctx, site, domain.DayBounds(date, loc))
	if err != nil {
		return err
	}
	if format != "csv" {
		return c.JSON(http.StatusOK, map[string]any{"hotelId": site.HotelID, "venueId": site.VenueID, "date": date,
			"timeZone": loc.String(), "report": report})
	}
	res := c.Response()
	res.Header().Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	res.Header().Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s-%s.csv"`, name, date))
	res.WriteHeader(http.StatusOK)
	w := csv.NewWriter(res)
	_ = w.Write([]string{"at", "kind", "channel", "booking_id", "payment_id", "refund_id", "amount_minor", "currency",
		"channel_id", "method", "reference", "taken_by", "amount", "guest", "reason", "note"})
	for _, it := range report.Items {
		_ = w.Write([]string{it.At.In(loc).Format(time.RFC3339), it.Kind, it.Channel, it.BookingID, it.PaymentID,
			it.RefundID, strconv.FormatInt(it.Amount, 10), it.Currency, it.ChannelID,
			it.Method, csvText(it.Reference), csvText(it.TakenBy), decimalAmount(it.Amount, it.Currency), csvText(it.Guest),
			csvText(it.Reason), csvText(it.Note)})
	}
	w.Flush()
	return w.Error()
}

// decimalAmount is minor units of currency as a decimal ("-12.50" for -1250 EUR), for a
// spreadsheet: ISO 4217's exponent (JPY has none, KWD three).
func decimalAmount(minor int64, currency string) string {
	e := domain.CurrencyExponent(currency)
	sign := ""
	if minor < 0 {
		sign, minor = "-", -minor
	}
	if e == 0 {
		return sign + strconv.FormatInt(minor, 10)
	}
	unit := int64(1)
	for range e {
		unit *= 10
	}
	return fmt.Sprintf("%s%d.%0*d", sign, minor/unit, e, minor%unit)
}

// csvText keeps a text someone typed (a refund's reference, who took a payment) from running as
// a spreadsheet formula when the CSV is opened: one starting with = + - @ or a tab gets a
// leading apostrophe, as OWASP advises.
func csvText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
