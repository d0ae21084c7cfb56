package worker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// A waitlist offer is a HOLD booking the give-back's transaction made (db/waitlist_offers.go),
// with a row in waitlist_offer_starts. OfferStarter starts its booking workflow, which holds it
// until its expiry as any hold: paid, it confirms; unpaid or declined, its release offers the
// units to the next entry. Never one workflow per product: a hot product's offers are rows.

const (
	offerPollEvery = 500 * time.Millisecond // how often due offers are looked for
	offerBatch     = 50                     // offers claimed at a time
	offerLease     = 30 * time.Second       // how long a claim keeps other workers off an offer
	// lapsedSweepEvery: how often entries whose product's window closed are closed.
	lapsedSweepEvery = time.Minute
)

// OfferStarter starts the workflows of the waitlist's offers, at once and then every
// offerPollEvery, and closes the entries whose product's window closed every lapsedSweepEvery. Workers share the work through leases: an offer whose starter died is taken up
// by another once its lease ran out, and a workflow already started is not started twice (the
// booking id is its id).
type OfferStarter struct {
	Temporal client.Client
	Store    *db.Store
	// Resume sets the started workflows' task queue and settings, as the checker's resumes.
	Resume ResumeOptions
	Poll   time.Duration // offerPollEvery when 0
	Logger *slog.Logger
}

// StartDue starts the workflows of the offers due now and says how many it started.
func (o *OfferStarter) StartDue(ctx context.Context) (int, error) {
	offers, err := o.Store.ClaimOfferStarts(ctx, offerBatch, offerLease)
	if err != nil {
		return 0, err
	}
	var errs []error
	started := 0
	for _, b := range offers {
		if err := StartOffer(ctx, o.Temporal, o.Store, b, o.Resume); err != nil {
			errs = append(errs, fmt.Errorf("offer %s: %w", b.ID, err))
			continue // its lease runs out and it is tried again
		}
		if err := o.Store.OfferStarted(ctx, b.ID); err != nil {
			errs = append(errs, err)
			continue
		}
		started++
	}
	return started, errors.Join(errs...)
}

// Run starts due offers until ctx ends.
func (o *OfferStarter) Run(ctx context.Context) {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	var swept time.Time
	for {
		n, err := o.StartDue(ctx)
		if err != nil && ctx.Err() == nil {
			log.Warn("waitlist: starting offers' workflows failed; trying again", "err", err)
		}
		if time.Since(swept) >= lapsedSweepEvery {
			swept = time.Now()
			if _, err := o.Store.CloseLapsedEntries(ctx); err != nil && ctx.Err() == nil {
				log.Warn("waitlist: closing entries past their product's window failed; trying again", "err", err)
			}
		}
		if n == offerBatch {
			continue // more may be due
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(cmp.Or(o.Poll, offerPollEvery)):
		}
	}
}

// StartOffer starts the booking workflow of waitlist offer b, which holds it until its expiry.
// An offer no longer held (released by the invariant checker before any workflow ran) needs
// none; a workflow of its id already started is left running.
func StartOffer(ctx context.Context, c client.Client, store *db.Store, b domain.Booking, opts ResumeOptions) error {
	if b.Status != domain.StatusHold {
		return nil
	}
	in, err := resumeInput(ctx, store, b, "offered from the waitlist", opts)
	if err != nil {
		return err
	}
	in.Resume.Offered = true
	err = startBookingRun(ctx, c, b, in, opts, enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return nil
	}
	return err
}

// StartPendingOffer starts the workflow of booking id when it is a waitlist offer whose workflow
// is still to start (the starter has not reached it, or its worker is down), and says whether
// id is an offer at all: a payment, a decline or a cancel that found no workflow then asks
// again, since an offer's workflow runs now (started here, or by the starter meanwhile).
func StartPendingOffer(ctx context.Context, c client.Client, store *db.Store, id string, opts ResumeOptions) (offer bool, err error) {
	offer, pending, err := store.OfferStart(ctx, id)
	if err != nil || !pending {
		return offer, err
	}
	b, err := store.GetBooking(ctx, id)
	if err != nil {
		return false, err
	}
	if err := StartOffer(ctx, c, store, b, opts); err != nil {
		return false, err
	}
	return true, store.OfferStarted(ctx, id)
}
