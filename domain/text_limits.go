package domain

import "unicode/utf8"

// Longer reports whether text a person typed (a name, a reason, a note) is longer than max
// characters. Limits on such text count characters, as the console's fields and the database's
// length() do, never bytes: a reason in Chinese is three bytes a character.
func Longer(text string, max int) bool {
	return utf8.RuneCountInString(text) > max
}
