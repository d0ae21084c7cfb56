package activities

import (
	"context"

	"github.com/bookflow/bookflow/db"
)

// Blocks runs the group blocks' steps.
type Blocks struct {
	Store *db.Store
}

// ReleaseDueBlocks gives back to sale what definite blocks hold on nights past their cut-off,
// each night once; it returns how many nights it released.
func (a *Blocks) ReleaseDueBlocks(ctx context.Context) (int, error) {
	return a.Store.ReleaseDueBlocks(ctx)
}
