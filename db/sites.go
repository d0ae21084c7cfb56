package db

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// SiteSummary is a hotel or a venue as staff pick it: its id, name, time zone and what it sells.
type SiteSummary struct {
	Kind     string `json:"kind"` // "hotel" or "venue"
	ID       string `json:"id"`
	Name     string `json:"name"`
	TimeZone string `json:"timeZone"`
	// Country (ISO 3166-1 alpha-2) is where the desk's national phone numbers are read; left
	// out when the site has none.
	Country   string            `json:"country,omitempty"`
	Resources []ResourceSummary `json:"resources"`
}

// ResourceSummary is one thing a site sells: a room type, or a venue's court, class or
// equipment.
type ResourceSummary struct {
	ID    string `json:"id"` // the room type's or the resource's id in its site
	Name  string `json:"name,omitempty"`
	Kind  string `json:"kind"`
	Unit  string `json:"unit"`
	Sport string `json:"sport,omitempty"`
	// Capacity is what each new unit of a venue's resource holds (none for a room type).
	Capacity int `json:"capacity,omitempty"`
}

// Sites lists the hotels and venues with their resources, hotels first, each by id. hotels and
// venues narrow the list when not nil (a front desk's own sites).
func (s *Store) Sites(ctx context.Context, hotels, venues []string) ([]SiteSummary, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT 'hotel', h.id, h.name, h.time_zone, coalesce(h.country, ''), r.code, '', r.kind, r.unit, '', NULL::integer
		FROM hotels h LEFT JOIN resources r ON r.hotel_id = h.id
		WHERE $1::text[] IS NULL OR h.id = ANY($1)
		UNION ALL
		SELECT 'venue', v.id, v.name, v.time_zone, coalesce(v.country, ''), r.code, r.name, r.kind, r.unit, r.sport, r.capacity
		FROM venues v LEFT JOIN resources r ON r.venue_id = v.id
		WHERE $2::text[] IS NULL OR v.id = ANY($2)
		ORDER BY 1, 2, 6`, hotels, venues)
	if err != nil {
		return nil, err
	}
	sites := []SiteSummary{} // none is an empty list, never null
	var site SiteSummary
	var code, name, kind, unit, sport *string
	var capacity *int
	_, err = pgx.ForEachRow(rows, []any{&site.Kind, &site.ID, &site.Name, &site.TimeZone, &site.Country, &code, &name, &kind, &unit, &sport, &capacity},
		func() error {
			if n := len(sites); n == 0 || sites[n-1].Kind != site.Kind || sites[n-1].ID != site.ID {
				sites = append(sites, SiteSummary{Kind: site.Kind, ID: site.ID, Name: site.Name, TimeZone: site.TimeZone,
					Country: site.Country, Resources: []ResourceSummary{}})
			}
			if code != nil {
				last := &sites[len(sites)-1]
				rs := ResourceSummary{ID: *code, Name: *name, Kind: *kind, Unit: *unit, Sport: *sport}
				if capacity != nil {
					rs.Capacity = *capacity
				}
				last.Resources = append(last.Resources, rs)
			}
			return nil
		})
	return sites, err
}
