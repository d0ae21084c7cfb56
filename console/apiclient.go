package console

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/bookflow/bookflow/api"
	"github.com/bookflow/bookflow/domain"
)

// apiClient calls the API's own handler in process, as the signed-in person: the console reads
// and acts only through the API.
type apiClient struct{ h http.Handler }

// apiError is the API's answer to a request it refused: its status and its error body.
type apiError struct {
	Status  int
	Code    string `json:"code"`
	Message string `json:"message"`
	// Details, for some codes, is what the console needs to act on the refusal (slots_booked).
	Details json.RawMessage `json:"details,omitempty"`
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

// call sends method path (with its query) as who, with body as JSON when not nil and the
// Idempotency-Key key when not empty, and decodes a 2xx answer into out when not nil. Anything
// else is an *apiError.
func (a apiClient) call(ctx context.Context, who domain.Principal, method, path string, body any, key string, out any) error {
	_, err := a.raw(ctx, who, method, path, body, key, out)
	return err
}

// raw is call, also returning the answer's body as it came (a CSV report).
func (a apiClient) raw(ctx context.Context, who domain.Principal, method, path string, body any, key string, out any) ([]byte, error) {
	var in io.Reader = http.NoBody
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		in = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(api.WithPrincipal(ctx, who), method, "/api/v1"+path, in)
	if err != nil {
		return nil, err
	}
	req.RemoteAddr = "127.0.0.1:0" // the console itself, not the browser
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	w := &answer{header: http.Header{}}
	a.h.ServeHTTP(w, req)
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.status < 200 || w.status > 299 {
		e := &apiError{Status: w.status}
		var wrapped struct {
			Error *apiError `json:"error"`
		}
		wrapped.Error = e
		if json.Unmarshal(w.body.Bytes(), &wrapped) != nil || e.Code == "" {
			e.Code, e.Message = "error", http.StatusText(w.status)
		}
		return nil, e
	}
	if out != nil {
		if err := json.Unmarshal(w.body.Bytes(), out); err != nil {
			return nil, fmt.Errorf("console: %s %s: %w", method, path, err)
		}
	}
	return w.body.Bytes(), nil
}

// answer is an in-memory http.ResponseWriter.
type answer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *answer) Header() http.Header { return w.header }
func (w *answer) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(b)
}
func (w *answer) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

// q builds a path with its query.
func q(path string, kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			v.Set(kv[i], kv[i+1])
		}
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// seg escapes one path segment.
func seg(s string) string { return url.PathEscape(s) }
