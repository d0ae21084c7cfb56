package console

// deskText is the front desk's day pages' messages: a venue's grid, a hotel's day, walk-ins,
// closures, and the words for states and payment methods every page uses.
var deskText = texts{
	"en": {
		"day.dates": "Dates", "day.today": "Today", "day.tomorrow": "Tomorrow", "day.pick": "Date", "day.show": "Show",
		"day.zone": "Times are in the site's time zone, %s.",

		"cell.free": "Free", "cell.held": "Held", "cell.paid": "Paid", "cell.in": "Checked in", "cell.closed": "Closed",
		"cell.places": "%d of %d places left",

		"venue.title": "%s on %s", "venue.caption": "Resources by slot on %s", "venue.resource": "Resource",
		"venue.reopen": "Reopen", "venue.book": "Book a walk-in", "venue.bookAria": "Book %s at %s for a walk-in",
		"venue.noSlots": "No slots on this day.", "venue.closeTitle": "Close a slot or the day",
		"venue.wholeVenue": "The whole venue", "venue.slot": "Slot", "venue.wholeDay": "The whole day",
		"venue.reason": "Reason", "venue.close": "Close", "venue.reopenTitle": "Reopen the day", "venue.reopenDay": "Reopen",
		"venue.closed": "Closed %d units.", "venue.reopened": "Reopened %d units.",

		"walkin.title": "Walk-in booking", "walkin.slot": "%s, %s to %s", "walkin.phone": "Phone number",
		"walkin.name": "Name", "walkin.places": "Places", "walkin.submit": "Book",
		"walkin.hint": "A guest is found by phone number, or added as a walk-in guest.", "walkin.cancel": "Back to the day",
		"walkin.noSlot": "Pick a slot on the day's grid.", "walkin.quantity": "Give a whole number of at least 1.",
		"walkin.booked": "Booked: %s. Take the payment below.",

		"hotel.title": "%s on %s", "hotel.arrivals": "Arriving", "hotel.staying": "Staying", "hotel.departing": "Leaving",
		"hotel.walkIn": "Walk-in booking", "hotel.ratePlan": "Rate plan", "hotel.roomType": "Room type", "hotel.checkIn": "Check-in",
		"hotel.nights": "Nights", "hotel.rooms": "Rooms", "hotel.stay": "Stay", "hotel.none": "Nobody.",

		"status.HOLD": "Held", "status.CONFIRMED": "Paid", "status.COMPLETED": "Checked in", "status.EXPIRED": "Expired",
		"status.CANCELLED": "Cancelled", "status.REJECTED": "Refused", "status.REFUNDING": "Refunding",
		"status.REFUNDED": "Refunded", "status.NO_SHOW": "No-show",

		"method.provider": "Online", "method.cash": "Cash", "method.card_terminal": "Card terminal",
		"method.bank_transfer": "Bank transfer", "method.other": "Other",
	},
	"zh-Hans": {
		"day.dates": "日期", "day.today": "今天", "day.tomorrow": "明天", "day.pick": "日期", "day.show": "查看",
		"day.zone": "时间均为场所当地时间（%s）。",

		"cell.free": "空闲", "cell.held": "保留中", "cell.paid": "已付款", "cell.in": "已签到", "cell.closed": "已关闭",
		"cell.places": "剩余 %d / %d 个名额",

		"venue.title": "%s · %s", "venue.caption": "%s 各场地时段", "venue.resource": "场地",
		"venue.reopen": "重新开放", "venue.book": "现场预订", "venue.bookAria": "为现场客人预订 %s 的 %s 时段",
		"venue.noSlots": "当天没有时段。", "venue.closeTitle": "关闭时段或整天",
		"venue.wholeVenue": "整个场馆", "venue.slot": "时段", "venue.wholeDay": "整天",
		"venue.reason": "原因", "venue.close": "关闭", "venue.reopenTitle": "重新开放当天", "venue.reopenDay": "重新开放",
		"venue.closed": "已关闭 %d 个时段。", "venue.reopened": "已重新开放 %d 个时段。",

		"walkin.title": "现场预订", "walkin.slot": "%s，%s 至 %s", "walkin.phone": "手机号码",
		"walkin.name": "姓名", "walkin.places": "名额", "walkin.submit": "预订",
		"walkin.hint": "按手机号码查找客人，找不到则新建为现场客人。", "walkin.cancel": "返回当天",
		"walkin.noSlot": "请在当天的时段表中选择一个时段。", "walkin.quantity": "请填写不小于 1 的整数。",
		"walkin.booked": "已预订：%s。请在下方收款。",

		"hotel.title": "%s · %s", "hotel.arrivals": "到店", "hotel.staying": "在住", "hotel.departing": "离店",
		"hotel.walkIn": "现场预订", "hotel.ratePlan": "价格方案", "hotel.roomType": "房型", "hotel.checkIn": "入住日期",
		"hotel.nights": "晚数", "hotel.rooms": "房间数", "hotel.stay": "住宿", "hotel.none": "无。",

		"status.HOLD": "保留中", "status.CONFIRMED": "已付款", "status.COMPLETED": "已签到", "status.EXPIRED": "已过期",
		"status.CANCELLED": "已取消", "status.REJECTED": "已拒绝", "status.REFUNDING": "退款中",
		"status.REFUNDED": "已退款", "status.NO_SHOW": "未到店",

		"method.provider": "线上支付", "method.cash": "现金", "method.card_terminal": "刷卡",
		"method.bank_transfer": "银行转账", "method.other": "其他",
	},
}
