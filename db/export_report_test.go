package db

// DailyReportItems is the query of a daily report's items: $1 a hotel, $2 a venue, [$3, $4) the day.
const DailyReportItems = dailyReportItems
