package db

// OneRoundTrips is how many reservations the store made with reserve_stay.
func OneRoundTrips(s *Store) int64 { return s.oneTrips.Load() }
