package console

// adminText is admins' pages' messages.
var adminText = texts{
	"en":      {"admin.title": "Admin"},
	"zh-Hans": {"admin.title": "管理"},
}
