package console

import (
	"testing"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

func TestSplitItemsPartsPaymentsFromRefundsInOrder(t *testing.T) {
	items := []db.ReportItem{{Kind: "payment", PaymentID: "p1"}, {Kind: "refund", RefundID: "r1"},
		{Kind: "payment", PaymentID: "p2"}, {Kind: "refund", RefundID: "r2"}}
	pays, refunds := splitItems(items)
	if len(pays) != 2 || pays[0].PaymentID != "p1" || pays[1].PaymentID != "p2" {
		t.Errorf("payments = %+v", pays)
	}
	if len(refunds) != 2 || refunds[0].RefundID != "r1" || refunds[1].RefundID != "r2" {
		t.Errorf("refunds = %+v", refunds)
	}
}

// Every finance message is in both languages.
func TestFinanceTextIsInEveryLanguage(t *testing.T) {
	for lang, msgs := range financeText {
		for other, theirs := range financeText {
			for key := range msgs {
				if _, ok := theirs[key]; !ok {
					t.Errorf("%s has %s, %s does not", lang, key, other)
				}
			}
		}
	}
	if len(financeText) != len(languageNames) {
		t.Errorf("finance's messages are in %d languages, the console has %d", len(financeText), len(languageNames))
	}
}

// Every channel and method a report can name has its words.
func TestFinanceNamesEveryChannelAndMethod(t *testing.T) {
	for _, key := range []string{db.ChannelOnline, db.ChannelDesk, db.ChannelAccount} {
		if _, ok := financeText["en"]["finance.channel."+key]; !ok {
			t.Errorf("no words for channel %s", key)
		}
	}
	for _, m := range append([]string{domain.MethodProvider, db.MethodAccount}, domain.DeskMethods...) {
		if _, ok := financeText["en"]["finance.method."+m]; !ok {
			t.Errorf("no words for method %s", m)
		}
	}
}

func TestFinancePagesParse(t *testing.T) {
	p, err := parsePages()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"finance", "finance_report", "finance_stuck", "finance_webhooks", "finance_refunds", "finance_money"} {
		if p.byName[name] == nil {
			t.Errorf("no page %s", name)
		}
	}
}
