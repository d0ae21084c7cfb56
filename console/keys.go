package console

import (
	"errors"
	"net/http"
)

// formKey is the idempotency key of a form that moves money or takes units, for intent (what
// the form asks, on which booking or slot). It is the same on every page drawn until the API
// has answered it: an answer lost to a timeout (503) leaves the outcome unknown, and the same
// form sent again must be the same request, or the money moves twice. Once the API answers, yes
// or no, settle makes the next form a new request.
func (r *request) formKey(prefix, intent string) string {
	name := "key:" + intent
	k := r.c.sessions.GetString(r.ctx(), name)
	if k == "" {
		k = newToken()
		r.c.sessions.Put(r.ctx(), name, k)
	}
	return prefix + k
}

// settle forgets intent's key once the API gave an answer: done (err nil) or refused (a 4xx).
// A 5xx (a timeout, the workflow busy) keeps it for the retry.
func (r *request) settle(intent string, err error) {
	var ae *apiError
	if err == nil || errors.As(err, &ae) && ae.Status < http.StatusInternalServerError {
		r.c.sessions.Remove(r.ctx(), "key:"+intent)
	}
}
