package console

func (c *Console) venueDay(r *request) error { return nil }
func (c *Console) hotelDay(r *request) error { return nil }
