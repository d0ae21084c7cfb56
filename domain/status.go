package domain

// Status is where a booking stands.
type Status string

// The booking states. Rooms are deducted when the hold is created, so HOLD and CONFIRMED hold
// inventory and every other state does not.
const (
	StatusHold      Status = "HOLD"
	StatusConfirmed Status = "CONFIRMED"
	StatusExpired   Status = "EXPIRED"
	StatusCancelled Status = "CANCELLED"
	StatusRejected  Status = "REJECTED"
)

// transitions lists the allowed moves; REJECTED is a starting outcome, not a move.
var transitions = map[Status][]Status{
	StatusHold:      {StatusConfirmed, StatusExpired, StatusCancelled},
	StatusConfirmed: {StatusCancelled},
}

// CanTransition reports whether a booking may move from one status to another.
func CanTransition(from, to Status) bool {
	for _, s := range transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// HoldsInventory reports whether a booking in this status keeps its units reserved.
func (s Status) HoldsInventory() bool { return s == StatusHold || s == StatusConfirmed }

// Final reports whether no further transition is possible.
func (s Status) Final() bool { return len(transitions[s]) == 0 }

// Sources returns the statuses from which a booking may move to s.
func Sources(s Status) []Status {
	var out []Status
	for from, tos := range transitions {
		for _, to := range tos {
			if to == s {
				out = append(out, from)
			}
		}
	}
	return out
}
