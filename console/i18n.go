package console

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"golang.org/x/text/language"

	"github.com/bookflow/bookflow/domain"
)

// The console's languages: English, and Simplified Chinese for the venue and hotel designs it
// follows. The first is the fallback.
var languages = []language.Tag{language.English, language.SimplifiedChinese}

// languageNames are the languages as their own speakers name them, for the switch.
var languageNames = map[string]string{"en": "English", "zh-Hans": "简体中文"}

var matcher = language.NewMatcher(languages)

// texts is one capability's messages, by language code ("en", "zh-Hans") and key.
type texts map[string]map[string]string

// messages is the whole catalogue; each capability keeps its messages beside its pages.
var messages = merge(commonText, deskText, bookingText, checkOutText, financeText, cashUpText, adminText, ratesText, blockText, actionText,
	searchText, folioText, roomText, venueGridText, noShowText, handOverText)

func merge(parts ...texts) texts {
	all := texts{}
	for _, p := range parts {
		for lang, m := range p {
			if all[lang] == nil {
				all[lang] = map[string]string{}
			}
			for k, v := range m {
				if _, dup := all[lang][k]; dup {
					panic("console: message " + k + " is defined twice")
				}
				all[lang][k] = v
			}
		}
	}
	return all
}

// catalogue is the messages of one language.
type catalogue struct {
	Lang string
	msgs map[string]string
}

// T is the message key in the catalogue's language, formatted with args; a key missing there
// falls back to English, and a key missing everywhere shows as itself (the catalogue test
// catches both).
func (c catalogue) T(key string, args ...any) string {
	msg, ok := c.msgs[key]
	if !ok {
		if msg, ok = messages["en"][key]; !ok {
			msg = key
		}
	}
	if len(args) == 0 {
		return msg
	}
	return fmt.Sprintf(msg, args...)
}

// Guest is how staff read a customer id: a walk-in guest booked by phone ("walk-in:+36...") as
// a walk-in with the phone, in the catalogue's language; any other id as itself.
func (c catalogue) Guest(id string) string {
	if phone, ok := strings.CutPrefix(id, domain.WalkInPrefix); ok {
		return c.T("guest.walkIn", phone)
	}
	return id
}

// Action is a staff action's name as the audit log records it ("money-desk-payment"), in the
// catalogue's language; an action the console has no name for shows as recorded.
func (c catalogue) Action(name string) string {
	if _, ok := messages["en"]["action."+name]; ok {
		return c.T("action." + name)
	}
	return name
}

// AuditReason is a staff action's reason: one the API writes itself ("desk-payment", "early
// departure") in the catalogue's language, one staff typed as typed.
func (c catalogue) AuditReason(reason string) string {
	if _, ok := messages["en"]["reason."+reason]; ok {
		return c.T("reason." + reason)
	}
	return reason
}

func catalogueFor(lang string) catalogue {
	if _, ok := messages[lang]; !ok {
		lang = "en"
	}
	return catalogue{Lang: lang, msgs: messages[lang]}
}

// language is the language a request is shown in: the one picked in the session, or the best
// match of the browser's Accept-Language.
func (c *Console) language(ec echo.Context) catalogue {
	if lang := c.sessions.GetString(ec.Request().Context(), keyLanguage); lang != "" {
		return catalogueFor(lang)
	}
	return catalogueFor(matchLanguage(ec.Request().Header.Get("Accept-Language")))
}

func matchLanguage(accept string) string {
	tags, _, _ := language.ParseAcceptLanguage(accept)
	_, i, _ := matcher.Match(tags...)
	if languages[i] == language.SimplifiedChinese {
		return "zh-Hans"
	}
	return "en"
}

// setLanguage keeps the language picked for the rest of the session.
func (c *Console) setLanguage(ec echo.Context) error {
	lang := ec.FormValue("lang")
	if _, ok := messages[lang]; ok {
		c.sessions.Put(ec.Request().Context(), keyLanguage, lang)
	}
	return ec.Redirect(http.StatusSeeOther, safeNext(ec.FormValue("next")))
}
