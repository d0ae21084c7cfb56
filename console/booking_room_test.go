package console

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEveryRefusalOfARoomHasASentence: the refusals of a booking's room and of a room out of
// order, as db/rooms.go, db/rooms_out_of_order.go and the blocked rooms (db/inventory.go) word
// them, each have a sentence for staff in both languages.
func TestEveryRefusalOfARoomHasASentence(t *testing.T) {
	for _, c := range []struct {
		status    int
		code, msg string
		want      string
	}{
		{409, "conflict", "conflict: room 101 is another booking's on a night from 2030-12-10 to 2030-12-13", "refusal.roomTaken"},
		{409, "conflict", "conflict: room 101 is out of order on a night from 2030-12-10 to 2030-12-13", "refusal.roomOutOfOrder"},
		{409, "conflict", "conflict: room 101 has a guest on 2030-12-11 (booking b-1): move them first", "refusal.roomHasGuest"},
		{409, "conflict", "conflict: room 102 is already out of order on a night of [2030-12-11, 2030-12-13)", "refusal.roomAlreadyOut"},
		{409, "conflict", "conflict: on 1 nights of h1/double in [2030-12-12, 2030-12-13) no room is free to block (0 on the " +
			"scarcest; the others are sold, held, allotted to channels or blocked): nothing was blocked", "refusal.noRoomToBlock"},
		{409, "conflict", "conflict: 1 nights of h1/double in [2030-12-12, 2030-12-13) are not on sale", "refusal.roomNotOnSale"},
		{409, "conflict", "conflict: room 102 is not out of order on any night of [2030-12-11, 2030-12-13)", "refusal.roomNotOut"},
		{409, "conflict", "conflict: booking b-1 is CANCELLED and holds no nights", "refusal.roomNoNights"},
		{400, "invalid_request", "invalid request: the booking has its 2 room(s) on 2030-12-10: name the room the guest moves out of", "refusal.roomMoveFrom"},
		{400, "invalid_request", "invalid request: from 2030-12-13 is not a night of the stay 2030-12-10 to 2030-12-13", "refusal.roomNight"},
		{400, "invalid_request", "invalid request: room 201 is a suite, the booking's rooms are double", "refusal.roomType"},
		{404, "not_found", "not found: hotel h1 has no room 999", "refusal.noRoom"},
	} {
		key, known := refusalKey(&apiError{Status: c.status, Code: c.code, Message: c.msg})
		assert.True(t, known, c.msg)
		assert.Equal(t, c.want, key, c.msg)
		for _, lang := range []string{"en", "zh-Hans"} {
			_, ok := messages[lang][key]
			assert.True(t, ok, "%s has no %s sentence", key, lang)
		}
	}
}
