package console

import (
	"errors"
	"net/http"
)

// Idempotency keys of the forms that move money or take units. Each form is drawn with a key
// of its own, so a double click is one request and two tabs are two. When the API's answer is
// lost (a timeout, 5xx: the outcome unknown), the key is kept as its intent's pending key (what
// the form asks, of which booking, guest or payment), and the same intent sent again, from any
// page drawn since, goes under it: the API answers it as the first request, never a second one.
// Any other answer settles the intent.

// formKey is the key a form for intent is drawn with: the intent's pending key, or a new one.
func (r *request) formKey(prefix, intent string) string {
	if k := r.c.sessions.GetString(r.ctx(), pendingKey(intent)); k != "" {
		return k
	}
	return prefix + newToken()
}

// keyFor is the key a posted form for intent is sent under: the intent's pending key when an
// earlier answer was lost, the form's own otherwise.
func (r *request) keyFor(intent string) string {
	if k := r.c.sessions.GetString(r.ctx(), pendingKey(intent)); k != "" {
		return k
	}
	return r.FormValue("key")
}

// settle records the API's answer to intent's request under key: a lost answer keeps the key
// pending; any other forgets it. A reservation abandoned past its bound spent its key (the API
// asks for a new one); a key reused with another body means the first request was carried out,
// which failOn tells the person.
func (r *request) settle(intent, key string, err error) {
	var ae *apiError
	if errors.As(err, &ae) && ae.Status >= http.StatusInternalServerError && ae.Code != "reservation_abandoned" {
		r.c.sessions.Put(r.ctx(), pendingKey(intent), key)
		return
	}
	r.c.sessions.Remove(r.ctx(), pendingKey(intent))
}

func pendingKey(intent string) string { return "pending:" + intent }
