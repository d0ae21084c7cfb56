package worker

import (
	"context"
	"log/slog"
	"time"

	"github.com/bookflow/bookflow/db"
)

// DefaultARIRetention is how long the ARI change feed keeps a change (ARI_RETENTION): a channel
// manager polls every few minutes; one away for longer exports again (a cursor the retention
// passed answers 410 Gone), so a week covers an outage without the log growing with every hold.
const DefaultARIRetention = 7 * 24 * time.Hour

const (
	ariPruneEvery = time.Hour // how often the feed is pruned
	ariPruneBatch = 5000      // changes deleted per statement
)

// ARIPruner deletes the ARI feed's changes older than Retention (db.Store.PruneARIChanges), at
// once and then hourly.
type ARIPruner struct {
	Store     *db.Store
	Retention time.Duration // DefaultARIRetention when 0
	Logger    *slog.Logger
}

// Prune deletes the changes older than Retention, a batch at a time, and says how many went.
func (p *ARIPruner) Prune(ctx context.Context) (int64, error) {
	retention := p.Retention
	if retention <= 0 {
		retention = DefaultARIRetention
	}
	var total int64
	for ctx.Err() == nil {
		n, err := p.Store.PruneARIChanges(ctx, retention, ariPruneBatch)
		total += n
		if err != nil || n < ariPruneBatch {
			return total, err
		}
	}
	return total, ctx.Err()
}

// Run prunes at once and then every ariPruneEvery until ctx ends.
func (p *ARIPruner) Run(ctx context.Context) {
	log := p.Logger
	if log == nil {
		log = slog.Default()
	}
	for {
		if n, err := p.Prune(ctx); err != nil && ctx.Err() == nil {
			log.Warn("ARI feed: pruning old changes failed; trying again later", "err", err)
		} else if n > 0 {
			log.Info("ARI feed: pruned old changes", "deleted", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(ariPruneEvery):
		}
	}
}
