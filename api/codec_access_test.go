package api_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/bookflow/bookflow/api"
	"github.com/bookflow/bookflow/auth"
	"github.com/bookflow/bookflow/codec"
	"github.com/bookflow/bookflow/domain"
)

// codecCaller calls the codec endpoint of an API configured by cfg as the staff it mints tokens
// for, and keeps the API's log lines.
type codecCaller struct {
	t      *testing.T
	e      *echo.Echo
	secret []byte
	logs   *bytes.Buffer
	body   string // sealed payloads, as the Temporal UI sends them
}

const codecAdminToken = "a-break-glass-token-of-at-least-32-bytes"

// codecSecretText is what the sealed payloads hold: it must appear in no log line.
const codecSecretText = "Jane Doe, +49 151 2345678"

func newCodecCaller(t *testing.T, perMinute int) *codecCaller {
	t.Helper()
	secret := []byte("codec-access-tests-secret-of-32-bytes")
	verifier, err := auth.NewVerifier(context.Background(), auth.Config{Secret: secret})
	require.NoError(t, err)
	keys, err := codec.ParseKeys("k1:"+base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32)), "k1")
	require.NoError(t, err)
	plain := []*commonpb.Payload{
		{Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: []byte(`"` + codecSecretText + `"`)},
		{Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: []byte(`{"phone":"+49 151 2345678"}`)},
	}
	sealed, err := keys.Codec().Encode(plain)
	require.NoError(t, err)
	body, err := protojson.Marshal(&commonpb.Payloads{Payloads: sealed})
	require.NoError(t, err)
	logs := &bytes.Buffer{}
	e := newEchoWith(t, api.Config{Auth: verifier, AdminToken: codecAdminToken, PayloadKeys: keys,
		CodecDecodePerMinute: perMinute, Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	return &codecCaller{t: t, e: e, secret: secret, logs: logs, body: string(body)}
}

// decode calls /codec/decode as sub with role (or with the break-glass token when sub is empty).
func (cc *codecCaller) decode(sub string, role domain.Role, body string) *httptest.ResponseRecorder {
	cc.t.Helper()
	token := codecAdminToken
	if sub != "" {
		var err error
		token, err = auth.Mint(cc.secret, domain.Principal{Subject: sub, Roles: []domain.Role{role}}, time.Hour, auth.MintOptions{})
		require.NoError(cc.t, err)
	}
	req := httptest.NewRequest(http.MethodPost, "/api/v1/staff/codec/decode", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Namespace", "bookings")
	req.Header.Set(api.RequestIDHeader, "req-"+sub)
	rec := httptest.NewRecorder()
	cc.e.ServeHTTP(rec, req)
	return rec
}

// accessLines are the codec's access log lines so far.
func (cc *codecCaller) accessLines() []map[string]any {
	var lines []map[string]any
	for _, raw := range strings.Split(strings.TrimSpace(cc.logs.String()), "\n") {
		var line map[string]any
		require.NoError(cc.t, json.Unmarshal([]byte(raw), &line), raw)
		if line["msg"] == "codec decode" {
			lines = append(lines, line)
		}
	}
	return lines
}

// TestEveryCodecDecodeIsLoggedWithoutItsPayloads: each call to /codec/decode leaves one log line
// naming who (the token's subject and role, or the break-glass token), how many payloads, the
// namespace, the outcome and the request id; no line holds what the payloads hold.
func TestEveryCodecDecodeIsLoggedWithoutItsPayloads(t *testing.T) {
	t.Parallel()
	cc := newCodecCaller(t, 0)
	rec := cc.decode("fiona", domain.RoleFinance, cc.body)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var opened commonpb.Payloads
	require.NoError(t, protojson.Unmarshal(rec.Body.Bytes(), &opened))
	assert.Equal(t, `"`+codecSecretText+`"`, string(opened.Payloads[0].Data), "the control: the call opened them")
	require.Equal(t, http.StatusOK, cc.decode("", "", cc.body).Code)
	assert.Equal(t, http.StatusBadRequest, cc.decode("adam", domain.RoleAdmin, `{"payloads": "not a list"}`).Code)

	lines := cc.accessLines()
	require.Len(t, lines, 3)
	assert.Equal(t, map[string]any{"subject": "fiona", "role": "finance", "payloads": 2.0, "namespace": "bookings",
		"outcome": "decoded", "status": 200.0, "requestId": "req-fiona"}, without(lines[0], "time", "level", "msg"))
	assert.Equal(t, "break-glass admin token", lines[1]["subject"])
	assert.Equal(t, "admin", lines[1]["role"])
	assert.Equal(t, 2.0, lines[1]["payloads"])
	assert.Equal(t, map[string]any{"subject": "adam", "role": "admin", "namespace": "bookings",
		"outcome": "invalid_request", "status": 400.0, "requestId": "req-adam"}, without(lines[2], "time", "level", "msg"))
	for _, secret := range []string{codecSecretText, "2345678", base64.StdEncoding.EncodeToString([]byte(`"` + codecSecretText + `"`))} {
		assert.NotContains(t, cc.logs.String(), secret)
	}
}

// TestCodecDecodesAreRateLimitedPerUser: past CODEC_DECODE_RATE_PER_USER calls a minute a user
// is answered 429 rate_limited with Retry-After, logged as such; another user is not held back.
// The control: with no limit the same calls all open.
func TestCodecDecodesAreRateLimitedPerUser(t *testing.T) {
	t.Parallel()
	cc := newCodecCaller(t, 3)
	for range 3 {
		require.Equal(t, http.StatusOK, cc.decode("fiona", domain.RoleFinance, cc.body).Code)
	}
	rec := cc.decode("fiona", domain.RoleFinance, cc.body)
	assert.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.NotEmpty(t, rec.Header().Get("Retry-After"))
	var answer struct {
		Error struct{ Code string } `json:"error"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &answer), rec.Body.String())
	assert.Equal(t, "rate_limited", answer.Error.Code)
	assert.NotContains(t, rec.Body.String(), codecSecretText)
	lines := cc.accessLines()
	require.Len(t, lines, 4)
	assert.Equal(t, "rate_limited", lines[3]["outcome"])
	assert.Equal(t, 429.0, lines[3]["status"])
	assert.Equal(t, http.StatusOK, cc.decode("adam", domain.RoleAdmin, cc.body).Code, "each user has an allowance of their own")

	unlimited := newCodecCaller(t, 0)
	for range 4 {
		assert.Equal(t, http.StatusOK, unlimited.decode("fiona", domain.RoleFinance, unlimited.body).Code)
	}
}

func without(m map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}
