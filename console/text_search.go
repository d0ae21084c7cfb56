package console

// searchText is the desk's search (every page's header, the results page) and a booking's
// guest (booking_guest.go) messages (issue 39).
var searchText = texts{
	"en": {
		"search.label": "Find a booking", "search.placeholder": "Name, phone, e-mail, booking or reference",
		"search.button": "Search", "search.title": "Search", "search.titleFor": "Search for “%s”",
		"search.short": "Type at least 2 characters: a part of the guest's name or e-mail, the phone's digits, a booking id or a supplier's or channel's reference.",
		"search.none":  "No booking matches “%s”.", "search.count": "Bookings found: %d, newest first.",
		"search.caption": "Bookings matching “%s”", "search.guest": "Guest", "search.status": "Status",
		"search.site": "Site", "search.when": "Dates or slot", "search.id": "Booking", "search.matched": "Matched by",
		"search.matched.name": "name", "search.matched.phone": "phone", "search.matched.email": "e-mail",
		"search.matched.id": "booking id", "search.matched.reference": "reference", "search.matched.customer": "customer id",

		"guest.heading": "Guest", "guest.name": "Name", "guest.phone": "Phone", "guest.email": "E-mail",
		"guest.guests": "Guests", "guest.arrivalTime": "Arrival time", "guest.notes": "Notes and requests",
		"guest.updated": "Last written down %s by %s.", "guest.none": "Nobody has written down this booking's guest yet.",
		"guest.edit": "Write down the guest", "guest.save": "Save the guest",
		"guest.arrivalHint": "HH:MM, at the site", "guest.saved": "The guest's details are saved.",
		"guest.err.email":       "Give one e-mail address, such as name@example.com.",
		"guest.err.guests":      "Give a whole number from 1 to 99, or leave it empty.",
		"guest.err.arrivalTime": "Give the time as HH:MM, 00:00 to 23:59.",
		"guest.err.notes":       "Notes are at most 2000 characters.", "guest.err.refused": "Nothing was saved: %s",
	},
	"zh-Hans": {
		"search.label": "搜索预订", "search.placeholder": "姓名、电话、电子邮件、预订号或参考号",
		"search.button": "搜索", "search.title": "搜索", "search.titleFor": "搜索“%s”",
		"search.short": "请至少输入 2 个字符：客人姓名或电子邮件的一部分、电话号码的数字、预订号，或供应商、渠道的参考号。",
		"search.none":  "没有与“%s”相符的预订。", "search.count": "找到的预订：%d 个，最新的在前。",
		"search.caption": "与“%s”相符的预订", "search.guest": "客人", "search.status": "状态",
		"search.site": "场所", "search.when": "日期或时段", "search.id": "预订", "search.matched": "匹配项",
		"search.matched.name": "姓名", "search.matched.phone": "电话", "search.matched.email": "电子邮件",
		"search.matched.id": "预订号", "search.matched.reference": "参考号", "search.matched.customer": "客户号",

		"guest.heading": "客人", "guest.name": "姓名", "guest.phone": "电话", "guest.email": "电子邮件",
		"guest.guests": "人数", "guest.arrivalTime": "到达时间", "guest.notes": "备注和要求",
		"guest.updated": "最后由 %[2]s 于 %[1]s 记录。", "guest.none": "尚未记录此预订的客人。",
		"guest.edit": "记录客人", "guest.save": "保存客人信息",
		"guest.arrivalHint": "时:分（HH:MM），场所当地时间", "guest.saved": "客人信息已保存。",
		"guest.err.email":       "请填写一个有效的电子邮件地址（只填一个）。",
		"guest.err.guests":      "请填写 1 至 99 的整数，或留空。",
		"guest.err.arrivalTime": "请按 时:分（HH:MM）填写，00:00 至 23:59。",
		"guest.err.notes":       "备注最多 2000 个字符。", "guest.err.refused": "未保存：%s",
	},
}
