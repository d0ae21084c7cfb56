package workflows_test

import (
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// upsertedKeys runs the booking until its hold expires and returns the search attributes each
// of its upserts set, in order.
func (s *BookingSuite) upsertedKeys() [][]string {
	var keys [][]string
	s.env.OnUpsertTypedSearchAttributes(mock.Anything).Run(func(args mock.Arguments) {
		var set []string
		for key := range args.Get(0).(temporal.SearchAttributes).GetUntypedValues() {
			set = append(set, key.GetName())
		}
		keys = append(keys, set)
	}).Return(nil)
	s.expectHold()
	s.expectRelease()
	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)
	s.Equal(domain.StatusExpired, s.result().Booking.Status)
	return keys
}

// TestALeanBookingStartedWithItsAttributesDoesNotUpsertThem: given at the start (as the API
// gives them), the hotel, customer and check-in are not upserted again; the status is.
func (s *BookingSuite) TestALeanBookingStartedWithItsAttributesDoesNotUpsertThem() {
	s.Require().NoError(s.env.SetTypedSearchAttributesOnStart(workflows.GiveStartAttributes(&s.input, "cus_0123456789abcdef0123456789abcdef")))
	s.True(s.input.StartAttributesGiven)
	keys := s.upsertedKeys()
	s.Require().NotEmpty(keys)
	for _, set := range keys {
		s.NotContains(set, "HotelId")
		s.NotContains(set, "CustomerId")
		s.NotContains(set, "CheckIn")
	}
	s.Contains(keys[0], "BookingStatus")
}

// TestABookingStartedWithoutItsAttributesUpsertsThem: started by an API that does not give
// them, the booking sets them first, as before.
func (s *BookingSuite) TestABookingStartedWithoutItsAttributesUpsertsThem() {
	keys := s.upsertedKeys()
	s.Require().NotEmpty(keys)
	s.ElementsMatch([]string{"HotelId", "CustomerId", "CheckIn"}, keys[0])
}
