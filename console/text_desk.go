package console

// deskText is the front desk's pages' messages.
var deskText = texts{
	"en":      {},
	"zh-Hans": {},
}

// bookingText is the booking page's messages.
var bookingText = texts{
	"en":      {},
	"zh-Hans": {},
}
