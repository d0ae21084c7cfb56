package testsuite_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestConsoleChargesExtrasAndPrintsTheReceipt (issue 39, the folio): a receptionist charges a
// checked-in guest the minibar on the booking page. A charge refused (an "Other" that says not
// what it was) comes back as typed with the error beside its field. The extras are in the
// money's sum, and the payment form asks for them; paid, nothing is due. A late check-out
// charged by mistake is voided with a reason. The receipt lists the night and the minibar (not
// the voided charge), its total and payments, passes the accessibility check, prints without
// the console's header and buttons, and Chromium prints it as a PDF.
func TestConsoleChargesExtrasAndPrintsTheReceipt(t *testing.T) {
	t.Parallel()
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	stay := stayFromNow(0, 1)
	openRooms(t, s, "h-folio", "double", stay, 1)
	id, total := holdRoom(t, s, "h-folio", "k-folio", stay, 1)
	payAndConfirm(t, s, id, total, "evt_cfolio", "pi_cfolio")
	desk := s.As(t, domain.Principal{Subject: "desk-folio", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"h-folio"}})
	require.Equal(t, http.StatusOK, desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/check-in", nil, nil).Status)

	b := testsuite.NewBrowser(t, "folio")
	b.DevSignIn(s, "desk-folio", "front_desk", "hotel:h-folio")
	b.Visit(s.ConsoleURL() + "/bookings/" + id)
	assert.Equal(t, "No extras charged.", b.Text("#folio-none"))

	b.Do(chromedp.Click(chromedp.ID("charge-open")), chromedp.SetValue(chromedp.ID("charge-kind"), "other"),
		chromedp.SetValue(chromedp.ID("charge-quantity"), "2"), chromedp.SetValue(chromedp.ID("charge-unit"), "3.50"))
	b.Submit("#charge-add")
	assert.Equal(t, "Say what it was: an extra of kind “Other” needs it.", b.Text("#err-description"))
	assert.Equal(t, []string{"other", "2", "3.50"}, []string{fieldValue(t, b, "charge-kind"), fieldValue(t, b, "charge-quantity"),
		fieldValue(t, b, "charge-unit")}, "the form as typed")
	b.Screenshot("charge-refused")

	b.Do(chromedp.SetValue(chromedp.ID("charge-kind"), "minibar"), chromedp.SetValue(chromedp.ID("charge-description"), "2 waters"))
	b.Submit("#charge-add")
	assert.Equal(t, "Minibar charged: EUR 7.00. Take it with the balance.", b.Text(".flash"))
	assert.Equal(t, "EUR 7.00", b.Text("#money-extras"))
	assert.Equal(t, "EUR 7.00", b.Text("#money-due"))
	assert.Equal(t, "7.00", fieldValue(t, b, "pay-amount"), "the payment form asks for the extras")

	b.Do(chromedp.Click(chromedp.ID("charge-open")), chromedp.SetValue(chromedp.ID("charge-kind"), "late_check_out"),
		chromedp.SetValue(chromedp.ID("charge-quantity"), "1"), chromedp.SetValue(chromedp.ID("charge-unit"), "20"))
	b.Submit("#charge-add")
	b.Do(chromedp.Click(chromedp.ID("void-open-1")), chromedp.SetValue(chromedp.ID("void-reason-1"), "left at eleven after all"))
	b.Submit("#void-1")
	assert.Equal(t, "The charge is voided: it is no longer due.", b.Text(".flash"))
	assert.Contains(t, b.Text("#charge-voided-1"), "left at eleven after all")
	assert.Equal(t, "EUR 7.00", b.Text("#money-due"))

	b.Do(chromedp.SetValue(chromedp.ID("pay-method"), "cash"))
	b.Submit("#take-payment")
	assert.Equal(t, "EUR 0.00", b.Text("#money-due"))
	b.Screenshot("extras-paid")

	b.Submit("#folio-receipt")
	night := testsuite.TestRate.Amount
	assert.Equal(t, "EUR "+formatEUR(night+700), b.Text("#receipt-total"))
	assert.Equal(t, "EUR "+formatEUR(night+700), b.Text("#receipt-paid"))
	assert.Equal(t, "EUR 0.00", b.Text("#receipt-due"))
	items := b.Text("#receipt-items")
	assert.Contains(t, items, "Minibar: 2 waters")
	assert.NotContains(t, items, "Late check-out", "a voided charge is not billed")
	b.Screenshot("receipt")
	b.AssertAccessible(t, "receipt")

	// Printed: the bill alone, without the console around it.
	b.Do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"})
		return err
	}))
	for _, sel := range []string{"header", "#print-receipt"} {
		boxes, err := chromedp.Run(b.Ctx, chromedp.Evaluate[int]("document.querySelector('"+sel+"').getClientRects().length"))
		require.NoError(t, err)
		assert.Zero(t, boxes, "%s is not printed", sel)
	}
	pdf, err := chromedp.Run(b.Ctx, func(ctx context.Context, _ *chromedp.Target) ([]byte, error) {
		res, err := chromedp.Call(ctx, page.PrintToPDF, page.PrintToPDFParams{})
		return res.Data, err
	})
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(pdf, []byte("%PDF-")), "Chromium prints the receipt as a PDF")
	assert.Equal(t, 1, bytes.Count(pdf, []byte("/Type /Page\n"))+bytes.Count(pdf, []byte("/Type /Page/")), "one page")
	require.NoError(t, os.WriteFile(filepath.Join(testsuite.ArtifactsDir(t), "folio-receipt.pdf"), pdf, 0o644))
}
