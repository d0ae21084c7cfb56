package api

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// A rooming list is a group's guests uploaded as pickups in one request (CSV). Each line is its
// own booking, made through the API's own staff booking route (POST /staff/bookings, in
// process, as the caller), so it is checked, held and paid exactly as a booking made alone.

// MaxRoomingListLines is the most lines one upload takes.
const MaxRoomingListLines = 100

// roomingListWorkers is how many lines are booked at once.
const roomingListWorkers = 4

// roomingLine is one guest of a rooming list.
type roomingLine struct {
	Line       int    `json:"line"` // its line in the file, the header being line 1
	Name       string `json:"name"`
	checkIn    domain.Date
	checkOut   domain.Date
	roomType   string
	quantity   int
	phone      string
	customerID string
	customer   string // the booking's customer: customerID, a walk-in's or a group guest's
	key        string // its booking's Idempotency-Key
	// The outcome: the HTTP status its booking was answered with, the booking, or the error.
	Status        int           `json:"status"`
	BookingID     string        `json:"bookingId,omitempty"`
	BookingStatus domain.Status `json:"bookingStatus,omitempty"`
	Error         *Error        `json:"error,omitempty"`
	// Released: held by this upload, then cancelled because another line was refused.
	Released bool `json:"released,omitempty"`
}

// held is whether the line's booking holds its rooms.
func (l *roomingLine) held() bool {
	return l.BookingStatus == domain.StatusHold || l.BookingStatus == domain.StatusConfirmed
}

// roomingListWait bounds an upload's work once begun: it goes on when its caller leaves, so an
// all-or-nothing upload never stops between its holds and their release.
const roomingListWait = 5 * time.Minute

// rateExemptKey marks a rooming list's own line bookings: the upload, one request of the desk,
// is not held to the hotel's rate of holds line by line.
type rateExemptKey struct{}

// rateExempt is whether the request is a rooming list's line booking (only code can say so).
func rateExempt(c echo.Context) bool { return c.Request().Context().Value(rateExemptKey{}) != nil }

// uploadRoomingList books each line of a CSV rooming list as a pickup of the block of the path.
// The header names the columns (any order, any case): name, checkIn, checkOut (required);
// roomType (the block's), quantity (1), phone (a walk-in by phone), customerId. Every line is
// checked before any is booked: a file that cannot be read or a bad value is 400 naming the
// line, with nothing booked. The same key with another upload is 422. With ?allOrNothing=true, a
// refused line cancels every line this upload held. The answer is 200 with each line's outcome.
func (s *Server) uploadRoomingList(c echo.Context) error {
	b, err := s.staffBlock(c, true)
	if err != nil {
		return err
	}
	key := c.Request().Header.Get("Idempotency-Key")
	if err := domain.ValidateIdempotencyKey(key); err != nil {
		return err
	}
	if len(key) > 100 {
		return newError(http.StatusBadRequest, "invalid_request", "a rooming list's Idempotency-Key takes at most 100 characters "+
			"(each line's booking adds the block and its line number)")
	}
	allOrNothing, err := strconv.ParseBool(cmp.Or(c.QueryParam("allOrNothing"), "false"))
	if err != nil {
		return newError(http.StatusBadRequest, "invalid_request", "allOrNothing must be true or false")
	}
	lines, err := readRoomingList(c.Request().Body, b.RoomTypeID)
	if err != nil {
		return err
	}
	who := principal(c)
	upload := sha256.New()
	fmt.Fprintf(upload, "%t\n", allOrNothing)
	for _, l := range lines {
		if err := s.checkRoomingLine(l, b, key); err != nil {
			return err
		}
		fmt.Fprintf(upload, "%d\x1f%s\x1f%s\x1f%s\x1f%s\x1f%d\x1f%s\n", l.Line, l.Name, l.customer, l.checkIn, l.checkOut,
			l.quantity, l.roomType)
	}
	if err := s.store.RecordRoomingList(c.Request().Context(), b.ID, who.Subject, key, hex.EncodeToString(upload.Sum(nil))); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.WithValue(context.WithoutCancel(c.Request().Context()), rateExemptKey{}, true),
		roomingListWait)
	defer cancel()
	eachLine(lines, func(l *roomingLine) { s.bookRoomingLine(ctx, who, b, l) })
	kept := true
	for _, l := range lines {
		kept = kept && l.held()
	}
	if allOrNothing && !kept {
		eachLine(lines, func(l *roomingLine) {
			// What this upload held, or may have held (its answer was lost): never a booking an
			// earlier sending of the upload made, which that answer kept.
			if (l.held() && l.Status == http.StatusCreated) || l.Status == 0 || l.Status >= 500 {
				id := cmp.Or(l.BookingID, domain.BookingID(s.cfg.BookingIDKey, l.customer, who.Subject, l.key))
				status, _ := s.inProcess(ctx, who, http.MethodPost, "/api/v1/staff/bookings/"+id+"/cancel", "", nil)
				l.Released = status == http.StatusOK && l.held()
			}
		})
	}
	held := 0
	for _, l := range lines {
		if l.held() && !l.Released {
			held++
		}
	}
	return c.JSON(http.StatusOK, map[string]any{"blockId": b.ID, "allOrNothing": allOrNothing,
		"kept": !allOrNothing || kept, "held": held, "refused": len(lines) - held, "lines": lines})
}

// checkRoomingLine checks a line as the staff booking route will, before any line is booked, and
// names its customer and its booking's key.
func (s *Server) checkRoomingLine(l *roomingLine, b db.Block, key string) error {
	l.key = fmt.Sprintf("%s-%s-%d", key, b.ID, l.Line)
	customerID := l.customerID
	if customerID == "" && l.phone == "" {
		customerID = groupGuestID(b.ID, key, l.Line)
	}
	customer, err := staffCustomer(customerID, walkIn{Phone: l.phone, Name: l.Name})
	if err == nil {
		l.customer = customer
		err = domain.HoldRequest{CustomerID: customer, HotelID: b.HotelID, RoomTypeID: l.roomType, Quantity: l.quantity,
			Stay: domain.Stay{CheckIn: l.checkIn, CheckOut: l.checkOut}, GroupCode: b.GroupCode}.Validate(s.cfg.Limits)
	}
	if err != nil {
		return fmt.Errorf("%w: line %d: %s", domain.ErrInvalid, l.Line, strings.TrimPrefix(err.Error(), domain.ErrInvalid.Error()+": "))
	}
	return nil
}

// bookRoomingLine books one line as POST /staff/bookings would, as who, and keeps the name of a
// guest named by name alone.
func (s *Server) bookRoomingLine(ctx context.Context, who domain.Principal, b db.Block, l *roomingLine) {
	body := map[string]any{"hotelId": b.HotelID, "roomTypeId": l.roomType, "checkIn": l.checkIn, "checkOut": l.checkOut,
		"quantity": l.quantity, "groupCode": b.GroupCode}
	if l.phone != "" {
		body["phone"], body["name"] = l.phone, l.Name
	} else {
		body["customerId"] = l.customer
	}
	status, answer := s.inProcess(ctx, who, http.MethodPost, "/api/v1/staff/bookings", l.key, body)
	l.Status = status
	if status >= 300 {
		l.Error = &Error{}
		var wrapped struct {
			Error *Error `json:"error"`
		}
		wrapped.Error = l.Error
		_ = json.Unmarshal(answer, &wrapped)
		return
	}
	var booking domain.Booking
	if err := json.Unmarshal(answer, &booking); err != nil {
		l.Error = newError(http.StatusInternalServerError, "internal", "the booking's answer could not be read")
		return
	}
	l.BookingID, l.BookingStatus = booking.ID, booking.Status
	if l.customerID == "" && l.phone == "" {
		if err := s.store.NoteBlockGuest(ctx, b.ID, booking.ID, l.Name); err != nil {
			s.cfg.Logger.ErrorContext(ctx, "rooming list: the guest's name was not kept", "booking", booking.ID, "err", err)
		}
	}
}

// eachLine runs do on every line, roomingListWorkers at a time.
func eachLine(lines []*roomingLine, do func(*roomingLine)) {
	next := make(chan *roomingLine)
	var wg sync.WaitGroup
	for range roomingListWorkers {
		wg.Go(func() {
			for l := range next {
				do(l)
			}
		})
	}
	for _, l := range lines {
		next <- l
	}
	close(next)
	wg.Wait()
}

// groupGuestID is the customer id of a rooming list's guest named only by name: the block's,
// the upload's and the line's, no personal data (it is sent to Temporal with the booking).
func groupGuestID(blockID, key string, line int) string {
	sum := sha256.Sum256([]byte(key))
	return fmt.Sprintf("group-guest-%s-%s-%d", strings.TrimPrefix(blockID, "blk_"), hex.EncodeToString(sum[:4]), line)
}

// inProcess sends a request to the API's own handler as who, with body as JSON and the
// Idempotency-Key key (none when empty), and returns the answer's status and body.
func (s *Server) inProcess(ctx context.Context, who domain.Principal, method, path, key string, body any) (int, []byte) {
	var in io.Reader = http.NoBody
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return http.StatusInternalServerError, nil
		}
		in = bytes.NewReader(b)
	}
	req := httptest.NewRequestWithContext(WithPrincipal(ctx, who), method, path, in)
	req.RemoteAddr = "127.0.0.1:0"
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	w := httptest.NewRecorder()
	s.self.ServeHTTP(w, req)
	return w.Code, w.Body.Bytes()
}

// readRoomingList reads a rooming list's CSV: a header, then at most MaxRoomingListLines guests,
// each numbered by its line in the file. A file that cannot be read, a missing, unknown or
// repeated column, or a bad value is ErrInvalid naming the line.
func readRoomingList(body io.Reader, blockRoomType string) ([]*roomingLine, error) {
	r := csv.NewReader(body)
	r.TrimLeadingSpace = true
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, csvError(err)
	}
	column := map[string]int{}
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		switch name {
		case "name", "checkin", "checkout", "roomtype", "quantity", "phone", "customerid":
			if _, twice := column[name]; twice {
				return nil, fmt.Errorf("%w: the column %q is given twice", domain.ErrInvalid, h)
			}
			column[name] = i
		default:
			return nil, fmt.Errorf("%w: unknown column %q: the columns are name, checkIn, checkOut, roomType, quantity, phone, customerId",
				domain.ErrInvalid, h)
		}
	}
	for _, required := range []string{"name", "checkin", "checkout"} {
		if _, ok := column[required]; !ok {
			return nil, fmt.Errorf("%w: the rooming list has no %s column", domain.ErrInvalid, required)
		}
	}
	var lines []*roomingLine
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvError(err)
		}
		if len(lines) == MaxRoomingListLines {
			return nil, fmt.Errorf("%w: a rooming list takes at most %d guests: send the rest in another upload", domain.ErrInvalid,
				MaxRoomingListLines)
		}
		at, _ := r.FieldPos(0)
		l, err := readRoomingLine(rec, column, blockRoomType)
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %s", domain.ErrInvalid, at, err.Error())
		}
		l.Line = at
		lines = append(lines, l)
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("%w: a rooming list is a CSV header (name,checkIn,checkOut,...) and at least one guest", domain.ErrInvalid)
	}
	return lines, nil
}

// csvError is a CSV reading error as a refusal naming its line.
func csvError(err error) error {
	var parseErr *csv.ParseError
	if errors.As(err, &parseErr) {
		return fmt.Errorf("%w: the rooming list is not CSV: line %d: %s", domain.ErrInvalid, parseErr.Line, parseErr.Err)
	}
	return err
}

// readRoomingLine reads one guest by the header's columns.
func readRoomingLine(rec []string, column map[string]int, blockRoomType string) (*roomingLine, error) {
	field := func(name string) string {
		if i, ok := column[name]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	l := &roomingLine{Name: field("name"), roomType: cmp.Or(field("roomtype"), blockRoomType), phone: field("phone"),
		customerID: field("customerid"), quantity: 1}
	var err error
	switch {
	case l.Name == "" || domain.Longer(l.Name, 200):
		return nil, errors.New("name is required (at most 200 characters)")
	case domain.ValidateText("name", l.Name) != nil:
		return nil, errors.New("name has a control character or is not UTF-8")
	case l.phone != "" && l.customerID != "":
		return nil, errors.New("give phone or customerId, not both")
	}
	if l.checkIn, err = domain.ParseDate(field("checkin")); err != nil {
		return nil, errors.New("checkIn must be a date (YYYY-MM-DD)")
	}
	if l.checkOut, err = domain.ParseDate(field("checkout")); err != nil {
		return nil, errors.New("checkOut must be a date (YYYY-MM-DD)")
	}
	if q := field("quantity"); q != "" {
		if l.quantity, err = strconv.Atoi(q); err != nil || l.quantity < 1 {
			return nil, errors.New("quantity must be a whole number of rooms, 1 or more")
		}
	}
	return l, nil
}
