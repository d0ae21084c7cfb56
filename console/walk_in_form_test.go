package console

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/bookflow/bookflow/domain"
)

// TestAWalkInsPhoneRefusalIsASentenceBesideThePhone: every way domain.NormalisePhoneIn refuses
// a number, as the API answers it, lands beside the phone field as its own sentence (never the
// API's words), in English and Simplified Chinese; a sold-out refusal names no field.
func TestAWalkInsPhoneRefusalIsASentenceBesideThePhone(t *testing.T) {
	for _, c := range []struct{ phone, country, key string }{
		{"06 30 123 4567", "", "form.err.phoneNoCountry"},
		{"11 91234 5678", "BR", "form.err.phoneCountryUnknown"},
		{"01 234 5678", "HU", "form.err.phoneNational"},
		{"06 30 abc", "HU", "form.err.phoneCharacters"},
		{"06 30 12", "HU", "form.err.phoneDigits"},
	} {
		_, err := domain.NormalisePhoneIn(c.phone, c.country)
		for _, lang := range []string{"en", "zh-Hans"} {
			cat := catalogue{Lang: lang, msgs: messages[lang]}
			f := walkInForm{Errors: map[string]string{}}
			refused := &apiError{Status: http.StatusBadRequest, Code: "invalid_request", Message: err.Error()}
			assert.True(t, f.refusal(cat, refused), c.phone)
			assert.Equal(t, http.StatusBadRequest, f.Status)
			assert.Equal(t, messages[lang][c.key], f.Errors["phone"], "%s %q in %s", c.country, c.phone, lang)
			assert.NotEmpty(t, f.Errors["phone"])
			assert.Empty(t, f.Refused)
		}
	}
	f := walkInForm{Errors: map[string]string{}}
	assert.True(t, f.refusal(catalogue{Lang: "en", msgs: messages["en"]},
		&apiError{Status: http.StatusConflict, Code: "unavailable", Message: "unavailable: room type double is sold out"}))
	assert.Equal(t, messages["en"]["form.err.soldOut"], f.Refused)
	assert.Empty(t, f.Errors)
	assert.False(t, f.refusal(catalogue{Lang: "en", msgs: messages["en"]}, &apiError{Status: http.StatusServiceUnavailable}),
		"a busy API is no refusal of the form")
}
