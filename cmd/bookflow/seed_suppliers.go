package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite/suppliersim"
)

// The demo's suppliers: a simulated supplier, run inside dev, serving two hotels. lisbon-lofts
// is direct_procure (its stock is pulled here, split with the wholesale channel); porto-live is
// direct_connect (every search and booking asks the supplier).
const (
	demoProcure      = "simsupply"
	demoConnect      = "simlive"
	demoProcureHotel = "lisbon-lofts"
	demoConnectHotel = "porto-live"
	demoChannel      = "wholesale"
	demoAgent        = "lena-travel"
	demoSyncDays     = 120
)

// listenSupplierSim listens on addr for the simulated supplier, stocked for the next
// demoSyncDays nights, and returns it, its URL, and serve, which answers its requests until ctx
// ends: seed first, so a request (a healthcheck) is answered only once the data is in.
func listenSupplierSim(ctx context.Context, addr string) (*suppliersim.Sim, string, func(), error) {
	sim := suppliersim.New()
	today := domain.DateOf(time.Now(), time.UTC)
	eight, three := 8, 3
	sim.SetStock(demoProcureHotel, "studio", today, today.AddDays(demoSyncDays), &eight, 8900, "EUR")
	sim.SetStock(demoProcureHotel, "loft", today, today.AddDays(demoSyncDays), &three, 15900, "EUR")
	sim.SetStock(demoConnectHotel, "double", today, today.AddDays(demoSyncDays), &eight, 11000, "EUR")
	sim.SetStock(demoConnectHotel, "river-view", today, today.AddDays(demoSyncDays), nil, 16500, "EUR") // unlimited
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", nil, err
	}
	srv := &http.Server{Handler: sim.Handler(), ReadHeaderTimeout: 5 * time.Second}
	serve := func() {
		go func() { _ = srv.Serve(ln) }()
		go func() {
			<-ctx.Done()
			_ = srv.Close()
		}()
	}
	return sim, "http://" + ln.Addr().String(), serve, nil
}

// runSupplierSim runs the simulated supplier on its own, as dev runs it inside itself: it
// serves on SUPPLIER_SIM_ADDR, registers its hotels, the wholesale channel and its agent (the
// walk-through's data), and serves until stopped. bookflow reaches it at SUPPLIER_SIM_URL
// (default: the address it listens on). docker-compose's supplier-sim service is this.
func runSupplierSim(ctx context.Context, cfg Config) error {
	pool, err := db.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	sim, simURL, serve, err := listenSupplierSim(ctx, cfg.SupplierSimAddr)
	if err != nil {
		return fmt.Errorf("SUPPLIER_SIM_ADDR=%s: %w", cfg.SupplierSimAddr, err)
	}
	if cfg.SupplierSimURL != "" {
		simURL = cfg.SupplierSimURL
	}
	if err := seedSuppliers(ctx, db.NewStore(pool, cfg.LockTimeout), sim, simURL); err != nil {
		return err
	}
	serve()
	<-ctx.Done()
	return nil
}

// seedSuppliers registers the simulated supplier's two hotels, pulls lisbon-lofts' stock once,
// gives the wholesale channel 2 studios a night, and adds its agent. Restarting dev points the
// suppliers at the new simulator and leaves the rest as it was.
func seedSuppliers(ctx context.Context, store *db.Store, sim *suppliersim.Sim, simURL string) error {
	for _, s := range []struct{ id, mode, hotel string }{
		{demoProcure, db.ModeDirectProcure, demoProcureHotel}, {demoConnect, db.ModeDirectConnect, demoConnectHotel},
	} {
		if err := store.PutSupplier(ctx, db.Supplier{ID: s.id, Name: "Simulated supplier (" + s.mode + ")", Mode: s.mode,
			Endpoint: simURL, PushSecret: "dev-push-secret-" + s.id, HoldMinutes: 30}); err != nil {
			return err
		}
		if err := store.SetHotelSupplier(ctx, s.hotel, s.id, "Europe/Lisbon"); err != nil && !errors.Is(err, domain.ErrConflict) {
			return err
		}
		today := domain.DateOf(time.Now(), time.UTC)
		if _, err := store.ApplySupplierStock(ctx, s.id, "pull", sim.Report(s.hotel, today, today.AddDays(demoSyncDays))); err != nil {
			return err
		}
	}
	if err := store.PutChannel(ctx, db.Channel{ID: demoChannel, Name: "Wholesale partners"}); err != nil {
		return err
	}
	if err := store.PutAgent(ctx, db.Agent{ID: demoAgent, ChannelID: demoChannel, Name: "Lena Travel"}); err != nil {
		return err
	}
	today := domain.DateOf(time.Now(), time.UTC)
	err := store.SetAllocations(ctx, []db.AllocationSet{{HotelID: demoProcureHotel, RoomTypeID: "studio", ChannelID: demoChannel,
		From: today.AddDays(1), To: today.AddDays(60), Allotted: 2}})
	if err != nil && !errors.Is(err, domain.ErrConflict) { // a restart after the wholesale channel sold some
		return err
	}
	slog.Info("seeded demo suppliers", "directProcure", demoProcureHotel, "directConnect", demoConnectHotel, "simulator", simURL)
	return nil
}
