package console

// blockText is the group blocks' pages' messages.
var blockText = texts{
	"en": {
		"block.link": "Group blocks", "block.listTitle": "Group blocks at %s", "block.none": "No group blocks from today on.",
		"block.groupCode": "Group code", "block.name": "Group", "block.nights": "Nights", "block.night": "Night",
		"block.rooms": "Promised", "block.tentative": "Tentative", "block.remaining": "Set aside", "block.picked": "Picked up",
		"block.released": "Released", "block.cutOff": "Cut-off", "block.noCutOff": "none",
		"block.title": "Group %s: %s", "block.back": "All the hotel's blocks", "block.caption": "Pickup by night",
		"block.status.INQUIRY": "Tentative", "block.status.DEFINITE": "Definite", "block.status.RELEASED": "Released",
		"block.status.CANCELLED": "Cancelled",
		"block.makeDefinite":     "Make definite", "block.definiteHint": "Takes the rooms from sale on every night, or on none if a night is short.",
		"block.releaseTitle": "Release rooms early", "block.releaseRooms": "Rooms", "block.everyNight": "Every night",
		"block.release": "Release", "block.cancel": "Cancel the block", "block.roomsNeeded": "Give a whole number of rooms, at least 1.",
		"block.done.definite": "Group %s is definite: its rooms are off sale.",
		"block.done.releases": "Rooms of group %s are back on sale.",
		"block.done.cancel":   "Group %s is cancelled: what it held is back on sale.",
	},
	"zh-Hans": {
		"block.link": "团队房", "block.listTitle": "%s 的团队房", "block.none": "今天起没有团队房。",
		"block.groupCode": "团队代码", "block.name": "团队", "block.nights": "日期", "block.night": "晚",
		"block.rooms": "约定", "block.tentative": "暂定", "block.remaining": "保留中", "block.picked": "已预订",
		"block.released": "已释放", "block.cutOff": "截止", "block.noCutOff": "无",
		"block.title": "团队 %s：%s", "block.back": "本酒店全部团队房", "block.caption": "每晚的预订情况",
		"block.status.INQUIRY": "暂定", "block.status.DEFINITE": "确定", "block.status.RELEASED": "已释放",
		"block.status.CANCELLED": "已取消",
		"block.makeDefinite":     "确定团队房", "block.definiteHint": "每晚都从销售中扣除房间；任何一晚不足则全部不扣。",
		"block.releaseTitle": "提前释放房间", "block.releaseRooms": "房间数", "block.everyNight": "每晚",
		"block.release": "释放", "block.cancel": "取消团队房", "block.roomsNeeded": "请填写不小于 1 的房间数。",
		"block.done.definite": "团队 %s 已确定：其房间已停止公开销售。",
		"block.done.releases": "团队 %s 的部分房间已重新开放销售。",
		"block.done.cancel":   "团队 %s 已取消：其保留的房间已重新开放销售。",
	},
}
