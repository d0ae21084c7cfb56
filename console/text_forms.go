package console

// formText is the walk-in forms' refusals, shown beside the field they concern or above the
// form, and the phone field's hints (walk_in_form.go).
var formText = texts{
	"en": {
		"form.err.phoneNoCountry": "Add the country code (such as +36 30 123 4567): this site has no country set, " +
			"so a number without it cannot be read.",
		"form.err.phoneCountryUnknown": "Add the country code (such as +36 30 123 4567): numbers of this site's country " +
			"are not read without it.",
		"form.err.phoneNational": "This is not a phone number of the site's country: check it, or give it with its " +
			"country code (+…).",
		"form.err.phoneCharacters": "A phone number holds only digits, a leading +, spaces, dots, dashes, slashes and " +
			"parentheses.",
		"form.err.phoneDigits":  "This is not a phone number: it needs 8 to 15 digits with the country code (+36 30 123 4567).",
		"form.err.phoneMissing": "Give the guest's phone number.",
		"form.err.name":         "A name is at most 200 characters.",
		"form.err.date":         "Give the date as YYYY-MM-DD, such as 2026-12-06.",
		"form.err.past":         "This date has passed at the site: pick today or later.",
		"form.err.horizon":      "This date is not on sale yet.",
		"form.err.nights":       "Too many nights for one booking.",
		"form.err.roomType":     "The hotel has no such room type (any more): pick another.",
		"form.err.ratePlan":     "This rate plan cannot be sold for this room type here: pick another.",
		"form.err.slotPast":     "This slot has begun: it can no longer be booked. Nothing was booked.",
		"form.err.slotUnit":     "This slot does not fit the resource's units. Nothing was booked.",
		"form.err.soldOut":      "Not enough left for this any more: nothing was booked. Pick other dates, another slot or fewer.",
		"form.err.sentTwice":    "This form was sent before with other details, and that booking went through: look for it on the day.",
		"form.err.refused":      "Nothing was booked: %s",
		"form.phoneHint":        "Numbers without a country code are read as %s numbers (+%s).",
		"form.phoneHintNone":    "Give the number with its country code (+36 30 123 4567): this site has no country set.",
		"form.country":          "Country",
		"form.countryHint": "ISO code such as HU: the desk's phone numbers without a country code are read as this " +
			"country's.",
	},
	"zh-Hans": {
		"form.err.phoneNoCountry":      "请加上国家代码（如 +36 30 123 4567）：本场所未设国家，无法识别不带国家代码的号码。",
		"form.err.phoneCountryUnknown": "请加上国家代码（如 +36 30 123 4567）：本场所所在国家的号码须带国家代码。",
		"form.err.phoneNational":       "这不是本场所所在国家的电话号码：请检查，或加上国家代码（+…）。",
		"form.err.phoneCharacters":     "电话号码只能包含数字、开头的 +、空格、点、短横线、斜线和括号。",
		"form.err.phoneDigits":         "这不是有效的电话号码：需带国家代码，共 8 至 15 位数字（如 +36 30 123 4567）。",
		"form.err.phoneMissing":        "请填写客人的电话号码。",
		"form.err.name":                "姓名最多 200 个字符。",
		"form.err.date":                "请按 年-月-日 填写日期，例如 2026-12-06。",
		"form.err.past":                "该日期在本场所已经过去：请选择今天或以后的日期。",
		"form.err.horizon":             "该日期尚未开放销售。",
		"form.err.nights":              "一次预订的晚数过多。",
		"form.err.roomType":            "酒店没有（或已不再有）此房型：请另选。",
		"form.err.ratePlan":            "此价格方案在这里不能用于该房型：请另选。",
		"form.err.slotPast":            "该时段已经开始，不能再预订。未预订任何内容。",
		"form.err.slotUnit":            "该时段与此资源的单位不符。未预订任何内容。",
		"form.err.soldOut":             "余量已不足：未预订任何内容。请选择其他日期、其他时段或减少数量。",
		"form.err.sentTwice":           "此表单之前已以其他内容提交，该预订已完成：请在当天页面查找。",
		"form.err.refused":             "未预订任何内容：%s",
		"form.phoneHint":               "不带国家代码的号码按 %s 号码（+%s）识别。",
		"form.phoneHintNone":           "请填写带国家代码的号码（如 +36 30 123 4567）：本场所未设国家。",
		"form.country":                 "国家",
		"form.countryHint":             "ISO 代码，如 HU：前台录入的不带国家代码的电话号码按此国家识别。",
	},
}

// The forms' messages join the catalogue here, beside them (the list in i18n.go is not this
// change's to edit; merge still refuses a key defined twice).
func init() { messages = merge(messages, formText) }
