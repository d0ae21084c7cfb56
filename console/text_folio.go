package console

// folioText is the folio's messages (booking_folio.go, receipt.go): the extras on a booking's
// page, their kinds, and the receipt; the quote before a change (booking_quote.go); and how a
// refund is given back (issue 39).
var folioText = texts{
	"en": {
		"folio.heading": "Extras", "folio.none": "No extras charged.", "folio.item": "Item",
		"folio.quantity": "Quantity", "folio.unit": "Each", "folio.kind": "Extra", "folio.description": "What it was",
		"folio.add": "Charge an extra", "folio.addButton": "Charge it", "folio.extras": "Extras due with the price: %s.",
		"folio.void": "Void", "folio.voidButton": "Void this %s charge", "folio.voidedBy": "voided %s by %s: %s",
		"folio.receipt": "Print the receipt", "folio.charged": "%s charged: %s. Take it with the balance.",
		"folio.voided":       "The charge is voided: it is no longer due.",
		"folio.err.quantity": "Give a whole number from 1 to 999.", "folio.err.kind": "Choose what the extra is.",
		"folio.err.description": "Say what it was: an extra of kind “Other” needs it.",
		"charge.city_tax":       "City tax", "charge.minibar": "Minibar", "charge.late_check_out": "Late check-out",
		"charge.equipment": "Equipment", "charge.other": "Other",
		"booking.extras": "Extras", "booking.sum.extras": "+ extras %s",

		"receipt.title": "Receipt: %s", "receipt.heading": "Receipt, %s", "receipt.back": "Back to the booking",
		"receipt.print": "Print", "receipt.printHint": "or save it as a PDF from the print dialog.",
		"receipt.items": "What was billed", "receipt.item": "Item", "receipt.night": "Night of %s",
		"receipt.total": "Total", "receipt.printed": "Printed %s by %s.",

		"quote.button": "See the price first", "quote.price": "The stay would cost %s (now %s).",
		"quote.more": "%s more to pay.", "quote.less": "%s would be refunded.", "quote.same": "The price stays the same.",
		"quote.left": "%s rooms left from %s to %s: %d.", "quote.unlimited": "%s: no limit on rooms.",
		"quote.then": "Nothing is changed yet: “Change” makes the change.",

		"refund.method": "Give it back", "refund.method.asPaid": "As it was paid",
		"refund.method.provider": "To the card (online)",
		"refusal.notChargeable":  "Extras are charged to a paid or checked-in booking only.",
		"refusal.chargePaid":     "The guest has paid for this charge: refund it first, then void it.",
		"refusal.providerCannot": "Part of this refund was paid at the desk: the card cannot take it back. Give it back in cash, on the terminal or by bank transfer.",
	},
	"zh-Hans": {
		"folio.heading": "额外费用", "folio.none": "没有额外费用。", "folio.item": "项目",
		"folio.quantity": "数量", "folio.unit": "单价", "folio.kind": "费用类型", "folio.description": "说明",
		"folio.add": "添加额外费用", "folio.addButton": "添加", "folio.extras": "与房价一起应付的额外费用：%s。",
		"folio.void": "作废", "folio.voidButton": "作废这笔 %s 的费用", "folio.voidedBy": "%s 由 %s 作废：%s",
		"folio.receipt": "打印收据", "folio.charged": "已添加%s：%s。请与余额一起收取。",
		"folio.voided":       "该费用已作废，不再应付。",
		"folio.err.quantity": "请输入 1 到 999 的整数。", "folio.err.kind": "请选择费用类型。",
		"folio.err.description": "请说明是什么费用：类型为“其他”时必须填写。",
		"charge.city_tax":       "城市税", "charge.minibar": "迷你吧", "charge.late_check_out": "延迟退房",
		"charge.equipment": "器材", "charge.other": "其他",
		"booking.extras": "额外费用", "booking.sum.extras": "+ 额外费用 %s",

		"receipt.title": "收据：%s", "receipt.heading": "收据，%s", "receipt.back": "返回预订",
		"receipt.print": "打印", "receipt.printHint": "也可以在打印对话框中另存为电子文档。",
		"receipt.items": "收费项目", "receipt.item": "项目", "receipt.night": "%s 晚",
		"receipt.total": "合计", "receipt.printed": "%s 由 %s 打印。",

		"quote.button": "先查看价格", "quote.price": "修改后住宿价格为 %s（现为 %s）。",
		"quote.more": "需补付 %s。", "quote.less": "将退还 %s。", "quote.same": "价格不变。",
		"quote.left": "%s 从 %s 到 %s 剩余房间：%d 间。", "quote.unlimited": "%s：房间数量不限。",
		"quote.then": "尚未做任何修改：点击“修改”才会执行。",

		"refund.method": "退款方式", "refund.method.asPaid": "按原付款方式",
		"refund.method.provider": "退回银行卡（线上）",
		"refusal.notChargeable":  "只能向已付款或已入住的预订添加额外费用。",
		"refusal.chargePaid":     "客人已支付这笔费用：请先退款，再作废。",
		"refusal.providerCannot": "这笔退款中有一部分是在前台支付的，无法退回银行卡。请以现金、刷卡或银行转账方式退还。",
	},
}
