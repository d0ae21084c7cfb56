package testsuite_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/stripe/stripe-go/v82"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/testsuite"
)

// atHotelHold holds two nights at hotel under HOTEL, a plan paid at the hotel, and a night under
// BAR; it answers both holds.
func atHotelHold(t *testing.T, sys *testsuite.System, hotel string) (atHotel, bar testsuite.Response) {
	t.Helper()
	stay := stayFromNow(40, 2)
	openRooms(t, sys, hotel, "double", stay, 2)
	putPlans(t, sys, hotel, planDef{"HOTEL", map[string]any{"name": "Pay at the hotel", "policy": map[string]any{},
		"derivedFrom": map[string]any{"parent": "BAR", "percent": "-5"}, "payment": map[string]any{"kind": "at_hotel"}}})
	body := holdBody(sys.Customer("guest"), hotel, "double", stay, 1)
	body["ratePlan"] = "HOTEL"
	atHotel = hold(t, sys, hotel+"-at-hotel", body)
	require.Equal(t, http.StatusCreated, atHotel.Status, atHotel.Raw)
	bar = hold(t, sys, hotel+"-bar", holdBody(sys.Customer("guest"), hotel, "double", stay, 1))
	require.Equal(t, http.StatusCreated, bar.Status, bar.Raw)
	return atHotel, bar
}

// TestAPayAtHotelHoldsCheckoutSavesACard: the checkout of a hold under a pay-at-hotel plan
// charges nothing: it answers the provider's setup that saves the guest's card (kind
// card_guarantee, amount 0, until the hold expires), the same setup when asked again; a hold under
// BAR is still a payment of its price. A booking whose card is already on file is refused (409).
func TestAPayAtHotelHoldsCheckoutSavesACard(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{}) // payments.Fake
	atHotel, bar := atHotelHold(t, sys, "h-guarantee")
	guest := sys.Guest(t, sys.Customer("guest"))
	id := atHotel.Body["id"].(string)

	res := guest.Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/payment", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "card_guarantee", res.Body["kind"], res.Raw)
	assert.Equal(t, float64(0), res.Body["amount"], "nothing is charged at booking")
	assert.Equal(t, "", res.Body["paymentId"])
	assert.Equal(t, "EUR", res.Body["currency"])
	assert.Equal(t, atHotel.Body["expiresAt"], res.Body["expiresAt"], "the card is saved while the hold lasts")
	setup, _ := res.Body["setupIntentId"].(string)
	assert.True(t, strings.HasPrefix(setup, "seti_fake_"), res.Raw)
	assert.NotEmpty(t, res.Body["clientSecret"])
	again := guest.Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/payment", nil, nil)
	require.Equal(t, http.StatusOK, again.Status, again.Raw)
	assert.Equal(t, setup, again.Body["setupIntentId"], "asking again returns the same setup")

	res = guest.Do(t, http.MethodPost, "/api/v1/bookings/"+bar.Body["id"].(string)+"/payment", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "payment", res.Body["kind"], res.Raw)
	assert.Equal(t, bar.Body["price"].(map[string]any)["total"], res.Body["amount"])
	assert.NotContains(t, res.Body, "setupIntentId")

	// The card on file (as its setup's webhook leaves it): nothing more to save.
	_, err := sys.DB.Pool.Exec(context.Background(), `UPDATE bookings SET card_guarantee = $2 WHERE id = $1`, id,
		domain.CardGuarantee{SetupIntentID: setup, CustomerID: "cus_1", PaymentMethodID: "pm_1"})
	require.NoError(t, err)
	res = guest.Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/payment", nil, nil)
	assert.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Contains(t, res.Raw, "wrong_state")
	assert.Contains(t, res.Raw, "already guaranteed")
}

// checkoutsOnly takes payments but saves no cards.
type checkoutsOnly struct {
	payments.Provider
	payments.Checkouts
}

// TestAPayAtHotelCheckoutNeedsAProviderThatSavesCards: an API whose provider takes payments but
// saves no cards answers 503 for a pay-at-hotel hold, and still takes the payment of a BAR hold.
func TestAPayAtHotelCheckoutNeedsAProviderThatSavesCards(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: checkoutsOnly{payments.Fake{}, payments.Fake{}}})
	atHotel, bar := atHotelHold(t, sys, "h-no-guarantee")
	guest := sys.Guest(t, sys.Customer("guest"))
	res := guest.Do(t, http.MethodPost, "/api/v1/bookings/"+atHotel.Body["id"].(string)+"/payment", nil, nil)
	assert.Equal(t, http.StatusServiceUnavailable, res.Status, res.Raw)
	assert.Contains(t, res.Raw, "payments_not_configured")
	res = guest.Do(t, http.MethodPost, "/api/v1/bookings/"+bar.Body["id"].(string)+"/payment", nil, nil)
	assert.Equal(t, http.StatusOK, res.Status, res.Raw)
}

// TestGuaranteesThroughStripeMock: saving a card and charging a fee to it are requests Stripe's
// API description accepts (stripe-mock validates every parameter; it answers fixtures, so the
// fee may come back refused by its fixture's status, never as an invalid request).
func TestGuaranteesThroughStripeMock(t *testing.T) {
	t.Parallel()
	provider := payments.NewStripe("sk_test_bookflow", testsuite.StartStripeMock(t))
	ctx := context.Background()
	out, err := provider.CreateGuarantee(ctx, payments.GuaranteeRequest{BookingID: "bk_mock", Currency: "EUR",
		IdempotencyKey: payments.GuaranteeKey("bk_mock")})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(out.SetupIntentID, "seti_"), "%+v", out)
	assert.True(t, strings.HasPrefix(out.CustomerID, "cus_"), "%+v", out)
	assert.NotEmpty(t, out.ClientSecret)

	_, err = provider.ChargeFee(ctx, payments.FeeRequest{BookingID: "bk_mock", Amount: 9000, Currency: "EUR",
		Kind: domain.FeeNoShow, IdempotencyKey: "bk_mock/fee/no_show",
		Guarantee: domain.CardGuarantee{SetupIntentID: out.SetupIntentID, CustomerID: out.CustomerID, PaymentMethodID: "pm_card_visa"}})
	var se *stripe.Error
	if errors.As(err, &se) {
		t.Fatalf("the fee's request was refused: %s %s: %s", se.Type, se.Code, se.Msg)
	}
	if err != nil {
		require.ErrorIs(t, err, payments.ErrFeeDeclined)
	}
}
