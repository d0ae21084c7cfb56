package console

// financeText is finance's pages' messages.
var financeText = texts{
	"en":      {"finance.title": "Finance"},
	"zh-Hans": {"finance.title": "财务"},
}
