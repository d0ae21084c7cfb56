package db

import (
	"context"

	"github.com/bookflow/bookflow/domain"
)

// WalkInCustomer finds the customer of a normalised phone number, or creates them (with name,
// recorded as created by staff member by); it returns their customer id. A name given later
// fills in one left empty, and never overwrites one.
func (s *Store) WalkInCustomer(ctx context.Context, phone, name, by string) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, `INSERT INTO walk_in_customers (phone, customer_id, name, created_by)
		VALUES ($1, $2, $3, $4)
		ON CONFLICT (phone) DO UPDATE SET name = CASE WHEN walk_in_customers.name = '' THEN EXCLUDED.name
			ELSE walk_in_customers.name END
		RETURNING customer_id`, phone, domain.WalkInPrefix+phone, name, by).Scan(&id)
	return id, err
}
