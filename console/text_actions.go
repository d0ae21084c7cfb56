package console

// actionText is the staff actions the audit log records, by the API's name for them (shown on
// the booking page's staff actions; catalogue.Action), the walk-in guest's label
// (catalogue.Guest), and how a date is typed (the date fields, parts.html's "date-input").
var actionText = texts{
	"en": {
		"action.check-in": "Checked in", "action.late-arrival": "Arrived late", "action.check-out": "Checked out", "action.no-show": "Marked a no-show", "action.confirm": "Confirmed without money",
		"action.cancel": "Cancelled", "action.money-desk-payment": "Payment at the desk",
		"action.money-price": "Price set by hand", "action.money-refund": "Refund",
		"action.manual-refund": "Refund made outside bookflow", "action.retry-refund": "Refund retried",
		"action.cash-up": "Shift cashed up", "action.cash-up-note": "Note on a cash-up",
		"action.resolve-refund": "Refund marked as made by hand", "action.recover-refund": "Refund recovered",
		"action.restart-refund": "Refund restarted", "action.give-staff-refunds": "Staff refunds given back",
		"action.resume-booking": "Booking resumed", "action.tell-supplier": "Supplier told again",
		"action.release-orphaned-hold": "Orphaned hold released", "action.reconcile-payment": "Payment reconciled",
		"action.redeliver-event": "Event delivered again", "action.erase-customer": "Guest's personal data erased",
		"action.note": "Note", "action.close-units": "Slots closed", "action.reopen-units": "Slots reopened",
		"action.guest": "Guest details changed", "action.apply-schedule": "Schedule applied",
		"action.put-rooms": "Rooms named", "action.assign-room": "Room assigned",
		"action.room-out-of-order": "Room out of order", "action.room-back-in-order": "Room back in order",
		"action.put-venue": "Venue saved", "action.put-venue-resource": "Resource saved",
		"action.set-inventory": "Rooms set", "action.set-rates": "Rates set", "action.set-blocked-rooms": "Rooms blocked",
		"action.set-cancellation-policy": "Cancellation policy set", "action.put-rate-plan": "Rate plan saved",
		"action.set-plan-rates": "Rate plan's rates set", "action.set-restrictions": "Restrictions set",
		"action.put-supplier": "Supplier saved", "action.set-hotel-supplier": "Hotel's supplier set",
		"action.sync-supplier": "Supplier's stock synced", "action.put-channel": "Channel saved",
		"action.put-agent": "Agent saved", "action.delete-allocation": "Allocation deleted",
		"action.set-allocations": "Allocations set", "action.create-sale-rule": "Sale rule created",
		"action.create-sale-rules": "Sale rules created", "action.replace-sale-rule": "Sale rule replaced",
		"action.end-sale-rule": "Sale rule ended", "action.set-stock-alert-thresholds": "Stock alert thresholds set",
		"action.resolve-stock-alert": "Stock alert resolved", "action.put-event-subscriber": "Event subscriber saved",
		"action.rotate-event-secret": "Event secret rotated", "action.folio-charge": "Extra charged",
		"action.folio-void": "Extra voided", "action.refund-handed-over": "Refund handed over at the desk",

		// The reasons the API writes itself for an action (the staff's own are shown as typed);
		// a desk payment's, an on-time check-out's and a guest's details' only repeat the action.
		"reason.desk-payment": "", "reason.check-out": "", "reason.guest details": "",
		"reason.early departure": "Early departure",

		"guest.walkIn": "Walk-in %s",

		"date.placeholder": "YYYY-MM-DD", "date.hint": "(YYYY-MM-DD)",
		"date.title":   "A date as year-month-day, such as 2026-12-06.",
		"date.invalid": "%q is not a date: give it as YYYY-MM-DD, such as 2026-12-06.",
	},
	"zh-Hans": {
		"action.folio-charge": "添加额外费用", "action.folio-void": "作废额外费用", "action.refund-handed-over": "已在前台退还",
		"action.check-in": "签到", "action.late-arrival": "迟到", "action.check-out": "退房", "action.no-show": "标记为未到店", "action.confirm": "免付款确认",
		"action.cancel": "取消预订", "action.money-desk-payment": "前台收款",
		"action.money-price": "手动改价", "action.money-refund": "退款",
		"action.manual-refund": "系统外退款登记", "action.retry-refund": "重试退款",
		"action.cash-up": "交班结账", "action.cash-up-note": "交班结账备注",
		"action.resolve-refund": "标记为人工退款", "action.recover-refund": "恢复退款",
		"action.restart-refund": "重新发起退款", "action.give-staff-refunds": "补发员工退款",
		"action.resume-booking": "恢复预订流程", "action.tell-supplier": "再次通知供应商",
		"action.release-orphaned-hold": "释放无主保留", "action.reconcile-payment": "对账收款",
		"action.redeliver-event": "重新推送事件", "action.erase-customer": "删除客人个人数据",
		"action.note": "备注", "action.close-units": "关闭时段", "action.reopen-units": "重新开放时段",
		"action.guest": "修改客人信息", "action.apply-schedule": "应用排期",
		"action.put-rooms": "设置房间号", "action.assign-room": "分配房间",
		"action.room-out-of-order": "房间停用", "action.room-back-in-order": "房间恢复使用",
		"action.put-venue": "保存场馆", "action.put-venue-resource": "保存资源",
		"action.set-inventory": "设置房间数", "action.set-rates": "设置价格", "action.set-blocked-rooms": "锁定房间",
		"action.set-cancellation-policy": "设置取消政策", "action.put-rate-plan": "保存价格计划",
		"action.set-plan-rates": "设置价格计划的价格", "action.set-restrictions": "设置限制",
		"action.put-supplier": "保存供应商", "action.set-hotel-supplier": "设置酒店的供应商",
		"action.sync-supplier": "同步供应商库存", "action.put-channel": "保存渠道",
		"action.put-agent": "保存代理商", "action.delete-allocation": "删除配额",
		"action.set-allocations": "设置配额", "action.create-sale-rule": "新建销售规则",
		"action.create-sale-rules": "批量新建销售规则", "action.replace-sale-rule": "替换销售规则",
		"action.end-sale-rule": "结束销售规则", "action.set-stock-alert-thresholds": "设置库存预警阈值",
		"action.resolve-stock-alert": "处理库存预警", "action.put-event-subscriber": "保存事件订阅方",
		"action.rotate-event-secret": "轮换事件密钥",

		"reason.desk-payment": "", "reason.check-out": "", "reason.guest details": "",
		"reason.early departure": "提前离店",

		"guest.walkIn": "散客 %s",

		"date.placeholder": "年-月-日", "date.hint": "（年-月-日）",
		"date.title":   "日期格式为 年-月-日，例如 2026-12-06。",
		"date.invalid": "%q 不是日期：请按 年-月-日 填写，例如 2026-12-06。",
	},
}
