package api

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/domain"
)

// The request parsers, fuzzed: whatever a client sends, the answer is a 4xx with a reason,
// never a panic or a 5xx. The seeds run with every `go test`; `go test -fuzz FuzzHoldBody
// ./api` explores further.

func contextWithBody(body string) echo.Context {
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	return echo.New().NewContext(req, httptest.NewRecorder())
}

// checkAnswer fails when err would be answered with a 5xx.
func checkAnswer(t *testing.T, input string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if e := toError(err); e.Status >= 500 || e.Code == "" || e.Message == "" {
		t.Fatalf("%q is answered %d %q %q", input, e.Status, e.Code, e.Message)
	}
}

func FuzzHoldBody(f *testing.F) {
	for _, seed := range []string{
		`{"customerId":"alice","hotelId":"h1","roomTypeId":"double","checkIn":"2030-01-10","checkOut":"2030-01-12","quantity":1}`,
		``, `[]`, `null`, `{"quantity":1e40}`, `{"checkIn":"2030-02-30"}`, `{"customerId":"\u0000"}`,
		`{"checkIn":"2030-01-10","checkOut":"2029-01-10","quantity":-1}`, `{} {}`, `{"price":1}`,
		`{"customerId":"` + strings.Repeat("x", 300) + `"}`, `{"checkIn":99999999999}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var req domain.HoldRequest
		err := decodeJSON(contextWithBody(body), &req)
		if err == nil {
			if err = req.Validate(domain.DefaultLimits); err == nil {
				_ = req.Fingerprint()
			}
		}
		checkAnswer(t, body, err)
	})
}

func FuzzInventoryBody(f *testing.F) {
	for _, seed := range []string{
		`{"from":"2030-01-01","to":"2030-02-01","totalRooms":5,"rate":10000,"currency":"EUR","timeZone":"Europe/Budapest"}`,
		`{"from":"2030-01-01","to":"2040-01-01","totalRooms":5}`, `{"totalRooms":-1}`, `{"timeZone":"../../etc/passwd"}`,
		`{"from":"2030-01-01","to":"2030-01-02","totalRooms":1,"timeZone":"Local"}`, `{"rate":1e30,"currency":"eur"}`,
	} {
		f.Add(seed, "grand-budapest", "double")
	}
	f.Add(`{}`, "", "a b")
	f.Fuzz(func(t *testing.T, body, hotelID, roomTypeID string) {
		var req inventoryRequest
		err := decodeJSON(contextWithBody(body), &req)
		if err == nil {
			_, err = req.params(hotelID, roomTypeID)
		}
		checkAnswer(t, body, err)
	})
}

func FuzzPolicyBody(f *testing.F) {
	for _, seed := range []string{
		`{"freeUntilHours":48,"feePercent":20,"noRefundHours":24}`, `{"freeUntilHours":72,"feeFixed":5000,"feeCurrency":"USD"}`,
		`{"feeFixed":5000}`, `{"feePercent":101}`, `{"freeUntilHours":-1}`, `{"noRefundHours":99999999999999999999}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var p domain.CancellationPolicy
		err := decodeJSON(contextWithBody(body), &p)
		if err == nil {
			err = p.Validate()
		}
		checkAnswer(t, body, err)
	})
}

func FuzzIdempotencyKey(f *testing.F) {
	for _, seed := range []string{"order-1", "", "2f1c:retry-1", strings.Repeat("k", 129), "ключ", "a b", "\x00"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, key string) {
		checkAnswer(t, key, domain.ValidateIdempotencyKey(key))
	})
}

func FuzzVenueBodies(f *testing.F) {
	for _, seed := range []string{
		`{"name":"Pudong","timeZone":"Asia/Shanghai","paymentWindowMinutes":15}`, `{"timeZone":"Local"}`,
		`{"kind":"quota_slot","capacity":6,"sport":"swimming"}`, `{"kind":"equipment","unit":"day","capacity":1e9}`,
		`{"from":"2030-03-31","to":"2030-04-01","opens":"02:30","closes":"24:00","slotMinutes":5,"price":{"amount":1,"currency":"EUR"}}`,
		`{"from":"2030-01-01","to":"2031-12-31","weekdays":[0,8],"opens":"7:00","closes":"25:00"}`, `{"slotMinutes":-60}`,
	} {
		for _, unit := range []string{domain.UnitSlot, domain.UnitHour, domain.UnitDay} {
			f.Add(seed, unit)
		}
	}
	f.Fuzz(func(t *testing.T, body, unit string) {
		var v domain.Venue
		err := decodeJSON(contextWithBody(body), &v)
		if err == nil {
			v.ID = "v1"
			err = v.Validate()
		}
		checkAnswer(t, body, err)
		var r domain.VenueResource
		if err := decodeJSON(contextWithBody(body), &r); err == nil {
			r.ID = "r1"
			checkAnswer(t, body, r.Validate())
		}
		var s domain.Schedule
		err = decodeJSON(contextWithBody(body), &s)
		if err == nil {
			if err = s.Validate(unit); err == nil {
				_ = s.Units(unit, time.UTC)
			}
		}
		checkAnswer(t, body, err)
	})
}
