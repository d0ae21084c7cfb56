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
		"venue.reopen": "Reopen", "venue.bookAria": "Book a walk-in: %s at %s",
		"venue.noSlots": "No slots on this day.", "venue.closeTitle": "Close a slot or the day",
		"venue.wholeVenue": "The whole venue", "venue.slot": "Slot", "venue.wholeDay": "The whole day",
		"venue.reason": "Reason", "venue.close": "Close", "venue.reopenTitle": "Reopen the day", "venue.reopenDay": "Reopen",
		"venue.closed": "Closed %d units.", "venue.reopened": "Reopened %d units.",
		"venue.closeBooked":     "Nothing was closed: bookings hold these slots",
		"venue.closeBookedHelp": "Open each booking to move it to another slot or to cancel and refund it, then close again. Or close keeping them: they stay booked, and are never marked no-shows.",
		"venue.closeKeeping":    "Close keeping these bookings", "venue.bookedLine": "%s · %s at %s · %s",

		"walkin.title": "Walk-in booking", "walkin.slot": "%s, %s to %s", "walkin.phone": "Phone number",
		"walkin.name": "Name", "walkin.places": "Places", "walkin.submit": "Book",
		"walkin.hint": "A guest is found by phone number, or added as a walk-in guest.", "walkin.cancel": "Back to the day",
		"walkin.noSlot": "Pick a slot on the day's grid.", "walkin.quantity": "Give a whole number of at least 1.",
		"walkin.booked": "Booked: %s. Take the payment below.",

		"hotel.title": "%s on %s", "hotel.arrivals": "Arriving", "hotel.staying": "Staying", "hotel.departing": "Leaving",
		"hotel.walkIn": "Walk-in booking", "hotel.ratePlan": "Rate plan", "hotel.roomType": "Room type", "hotel.checkIn": "Check-in",
		"hotel.nights": "Nights", "hotel.rooms": "Rooms", "hotel.stay": "Stay", "hotel.none": "Nobody.",
		"hotel.waitlists": "Waitlists for the night of %s", "hotel.waitlist": "Waitlist: %s",

		"venue.waitlist": "Waitlist", "venue.waitlistAria": "Waitlist of %s at %s",
		"waitlist.title": "Waitlist at %s", "waitlist.stay": "%s, %s to %s", "waitlist.slot": "%s on %s, %s to %s",
		"waitlist.back": "Back to the day", "waitlist.entries": "Waiting: %d", "waitlist.none": "Nobody is waiting.",
		"waitlist.place": "Place", "waitlist.quantity": "Units", "waitlist.offer": "Offer booking", "waitlist.expires": "Offer expires",
		"waitlist.status.waiting": "Waiting", "waitlist.status.offered": "Offered", "waitlist.status.closed": "Closed",
		"waitlist.offerNow":  "Offer what is free now",
		"waitlist.offerHint": "Offers the free units to the entries in order, by the site's fit rule, as a cancellation would.",
		"waitlist.offered":   "Offered: %s.", "waitlist.offeredTo": "%s ×%s (booking %s)",
		"waitlist.nothing":   "Nothing was offered: no free units fit the entries waiting.",
		"waitlist.notYours":  "You do not work for %s: its waitlist is its own staff's.",
		"waitlist.noProduct": "Open a waitlist from a day's page: it names a room type's night or a slot.",

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
		"venue.reopen": "重新开放", "venue.bookAria": "现场预订：%s 的 %s 时段",
		"venue.noSlots": "当天没有时段。", "venue.closeTitle": "关闭时段或整天",
		"venue.wholeVenue": "整个场馆", "venue.slot": "时段", "venue.wholeDay": "整天",
		"venue.reason": "原因", "venue.close": "关闭", "venue.reopenTitle": "重新开放当天", "venue.reopenDay": "重新开放",
		"venue.closed": "已关闭 %d 个时段。", "venue.reopened": "已重新开放 %d 个时段。",
		"venue.closeBooked":     "未关闭任何时段：这些时段已有预订",
		"venue.closeBookedHelp": "请打开每个预订，将其改到其他时段，或取消并退款，然后再关闭。也可以保留这些预订关闭：预订保持不变，且不会被记为未到。",
		"venue.closeKeeping":    "保留这些预订并关闭", "venue.bookedLine": "%s · %s，%s · %s",

		"walkin.title": "现场预订", "walkin.slot": "%s，%s 至 %s", "walkin.phone": "手机号码",
		"walkin.name": "姓名", "walkin.places": "名额", "walkin.submit": "预订",
		"walkin.hint": "按手机号码查找客人，找不到则新建为现场客人。", "walkin.cancel": "返回当天",
		"walkin.noSlot": "请在当天的时段表中选择一个时段。", "walkin.quantity": "请填写不小于 1 的整数。",
		"walkin.booked": "已预订：%s。请在下方收款。",

		"hotel.title": "%s · %s", "hotel.arrivals": "到店", "hotel.staying": "在住", "hotel.departing": "离店",
		"hotel.walkIn": "现场预订", "hotel.ratePlan": "价格方案", "hotel.roomType": "房型", "hotel.checkIn": "入住日期",
		"hotel.nights": "晚数", "hotel.rooms": "房间数", "hotel.stay": "住宿", "hotel.none": "无。",
		"hotel.waitlists": "%s 当晚的候补名单", "hotel.waitlist": "候补名单：%s",

		"venue.waitlist": "候补名单", "venue.waitlistAria": "%s 在 %s 的候补名单",
		"waitlist.title": "%s 的候补名单", "waitlist.stay": "%s，%s 至 %s", "waitlist.slot": "%s，%s %s 至 %s",
		"waitlist.back": "返回当天", "waitlist.entries": "候补中：%d", "waitlist.none": "无人候补。",
		"waitlist.place": "顺位", "waitlist.quantity": "数量", "waitlist.offer": "候补预订", "waitlist.expires": "保留截止",
		"waitlist.status.waiting": "候补中", "waitlist.status.offered": "已为其保留", "waitlist.status.closed": "已结束",
		"waitlist.offerNow":  "把现有空位给候补客人",
		"waitlist.offerHint": "按顺序把空余数量保留给候补客人，遵循场所的匹配规则，与取消预订时相同。",
		"waitlist.offered":   "已保留给：%s。", "waitlist.offeredTo": "%s ×%s（预订 %s）",
		"waitlist.nothing":   "未保留任何空位：没有适合候补客人的空余数量。",
		"waitlist.notYours":  "您不负责 %s：其候补名单只由该场所的员工处理。",
		"waitlist.noProduct": "请从当天页面打开候补名单：须指明某房型的某晚或某个时段。",

		"status.HOLD": "保留中", "status.CONFIRMED": "已付款", "status.COMPLETED": "已签到", "status.EXPIRED": "已过期",
		"status.CANCELLED": "已取消", "status.REJECTED": "已拒绝", "status.REFUNDING": "退款中",
		"status.REFUNDED": "已退款", "status.NO_SHOW": "未到店",

		"method.provider": "线上支付", "method.cash": "现金", "method.card_terminal": "刷卡",
		"method.bank_transfer": "银行转账", "method.other": "其他",
	},
}
