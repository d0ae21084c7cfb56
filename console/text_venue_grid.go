package console

// venueGridText is the venue grid's messages of issue 39: the now line, ended slots, equipment
// rows and late arrivals.
var venueGridText = texts{
	"en": {
		"venue.now": "Now: %s", "cell.placesShort": "%d/%d", "cell.past": "Ended", "venue.bookShort": "Book",
		"venue.unit.hour": "by the hour", "venue.unit.day": "by the day",
		"venue.lateBy": "late %d min", "venue.lateShort": "+%d min", "venue.late": "Late", "venue.lateAria": "Late arrival: %s",
		"venue.lateRecorded":  "Late arrival recorded: %d min after the booking began.",
		"venue.lateNoBooking": "Pick a booking on the day's grid.",
	},
	"zh-Hans": {
		"venue.now": "现在：%s", "cell.placesShort": "%d/%d", "cell.past": "已结束", "venue.bookShort": "现场预订",
		"venue.unit.hour": "按小时", "venue.unit.day": "按天",
		"venue.lateBy": "迟到 %d 分钟", "venue.lateShort": "迟 %d 分", "venue.late": "迟到", "venue.lateAria": "迟到：%s",
		"venue.lateRecorded":  "已记录迟到：预订开始后 %d 分钟。",
		"venue.lateNoBooking": "请在当天的时段表中选择一个预订。",
	},
}
