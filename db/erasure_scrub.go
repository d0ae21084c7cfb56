package db

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"

	"github.com/jackc/pgx/v5"
)

// ErasedText replaces a walk-in guest's phone number and name wherever free text held them.
const ErasedText = "[erased]"

// minErasedName is the shortest name erased from free text: a shorter one would garble words.
const minErasedName = 3

// providerPersonalKeys are the payment provider's fields that name a person (its customer
// object, the card holder's billing details, e-mail, shipping address); a stored event of an
// erased customer's booking loses them. bookflow reads none of them.
var providerPersonalKeys = map[string]bool{"billing_details": true, "customer": true, "customer_details": true,
	"customer_email": true, "receipt_email": true, "shipping": true}

// scrubber replaces one customer's id with its pseudonym, and a walk-in guest's phone and name
// with ErasedText, in free text in any case ("ANN@example.com" is Ann@Example.com's id).
type scrubber struct {
	id, pseudonym, phone, name string
	swaps                      []swap // compile
}

// swap is one replacement of text matching re (in any case) with with.
type swap struct {
	re   *regexp.Regexp
	with string
}

// compile makes the swaps, once phone and name are known: the id, then the phone, then the name.
func (sc *scrubber) compile() {
	sc.swaps = nil
	for _, w := range [][2]string{{sc.id, sc.pseudonym}, {sc.phone, ErasedText}, {sc.namePattern(), ErasedText}} {
		if w[0] != "" {
			sc.swaps = append(sc.swaps, swap{regexp.MustCompile(`(?i)` + regexp.QuoteMeta(w[0])), w[1]})
		}
	}
}

// namePattern is the name to scrub: none when shorter than minErasedName (it would garble words).
func (sc scrubber) namePattern() string {
	if len(sc.name) < minErasedName {
		return ""
	}
	return sc.name
}

// text scrubs free text.
func (sc scrubber) text(s string) string {
	for _, w := range sc.swaps {
		s = w.re.ReplaceAllLiteralString(s, w.with)
	}
	return s
}

// neverMatches is a pattern that matches nothing (^ anchors at the start of the text only): for a
// phone or name there is none of.
const neverMatches = `x^`

// sqlPattern is s as a PostgreSQL regular expression matching it literally (QuoteMeta's escapes
// are literal characters there too), neverMatches when empty.
func sqlPattern(s string) string {
	if s == "" {
		return neverMatches
	}
	return regexp.QuoteMeta(s)
}

// sqlText is text as SQL, over $6 (the id's pattern), $2 (the pseudonym), $4 (the phone's) and $5
// (the name's), in any case: as scrubber.text.
func sqlText(col string) string {
	return `regexp_replace(regexp_replace(regexp_replace(` + col + `, $6, $2, 'gi'), $4, '` + ErasedText + `', 'gi'), $5, '` +
		ErasedText + `', 'gi')`
}

// rewriteJSON scrubs the JSON payload of each row query selects (a key and the payload) and
// writes back through update those it changed.
func (sc scrubber) rewriteJSON(ctx context.Context, tx pgx.Tx, query, update string, args ...any) (int64, error) {
	rows, err := tx.Query(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	keys, payloads := []string{}, [][]byte{}
	for rows.Next() {
		var k string
		var p []byte
		if err := rows.Scan(&k, &p); err != nil {
			return 0, err
		}
		keys, payloads = append(keys, k), append(payloads, p)
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	var n int64
	for i, k := range keys {
		scrubbed, changed, err := sc.jsonDoc(payloads[i])
		if err != nil || !changed {
			if err != nil {
				return 0, err
			}
			continue
		}
		if _, err := tx.Exec(ctx, update, k, scrubbed); err != nil {
			return 0, err
		}
		n++
	}
	return n, nil
}

// jsonDoc scrubs a JSON document (nil stays nil), its numbers kept exactly, and reports whether
// that changed it.
func (sc scrubber) jsonDoc(doc []byte) ([]byte, bool, error) {
	if doc == nil {
		return nil, false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false, err
	}
	before, err := json.Marshal(v)
	if err != nil {
		return nil, false, err
	}
	after, err := json.Marshal(sc.json(v))
	if err != nil {
		return nil, false, err
	}
	return after, !bytes.Equal(before, after), nil
}

// json scrubs a decoded JSON value: the provider's personal fields are dropped, every string and
// key scrubbed as text. It returns a new value; v is left as it was.
func (sc scrubber) json(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			if !providerPersonalKeys[k] {
				out[sc.text(k)] = sc.json(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = sc.json(x)
		}
		return out
	case string:
		return sc.text(v)
	}
	return v
}
