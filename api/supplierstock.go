package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/suppliers"
	"github.com/bookflow/bookflow/workflows"
)

// maxPushBytes bounds a pushed stock report: 50 room types of two years' nights fit.
const maxPushBytes = 4 << 20

// supplierPushPath is the route suppliers push stock to, signed with their push secret instead
// of a bearer token.
const supplierPushPath = "/api/v1/suppliers/:supplierId/stock"

// pushStock takes a supplier's signed stock report for one hotel. A bad signature, malformed or
// invalid data (a night without a rate among them), or a hotel that is not the supplier's is 400
// and writes nothing; the same signed push again is 409 replayed. A valid report is written
// whole, in report-time order (see db.Store.ApplySupplierStock: a night a newer report set is
// left alone, stock never drops below what is sold or held, and such a night raises an alert).
// A report without reportedAt is ordered by when it arrived.
func (s *Server) pushStock(c echo.Context) error {
	supplierID := c.Param("supplierId")
	if err := domain.ValidateID("supplierId", supplierID); err != nil {
		return err
	}
	body, err := io.ReadAll(io.LimitReader(c.Request().Body, maxPushBytes+1))
	if err != nil {
		return err
	}
	if len(body) > maxPushBytes {
		return newError(http.StatusRequestEntityTooLarge, "body_too_large", "a stock report is at most %d bytes", maxPushBytes)
	}
	ctx := c.Request().Context()
	sup, err := s.store.GetSupplier(ctx, supplierID)
	if errors.Is(err, domain.ErrNotFound) {
		sup.PushSecret = "" // answered as a bad signature: pushes cannot probe which suppliers exist
	} else if err != nil {
		return err
	}
	arrived := s.cfg.Now()
	signature := c.Request().Header.Get(suppliers.SignatureHeader)
	if err := suppliers.Verify(body, signature, sup.PushSecret, arrived, suppliers.DefaultTolerance); err != nil {
		return newError(http.StatusBadRequest, "bad_signature", "%s", err.Error())
	}
	var report domain.StockReport
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&report); err != nil || dec.More() {
		return fmt.Errorf("%w: the body must be one stock report: %v", domain.ErrInvalid, err)
	}
	if err := report.Validate(); err != nil {
		return err
	}
	yesterday := domain.DateOf(arrived, time.UTC).AddDays(-1) // today somewhere west of UTC
	if err := report.Within(yesterday, yesterday.AddDays(domain.MaxReportNights)); err != nil {
		return err
	}
	if report.ReportedAt == nil {
		// Stamped with its arrival, a re-signed retry of an older push would put its totals back
		// over a newer pull's: only the supplier's own time orders its retries.
		return fmt.Errorf("%w: stock report: reportedAt is required on a push (when the supplier read the stock it reports)",
			domain.ErrInvalid)
	}
	at, err := report.OrderedAt(arrived, arrived)
	if err != nil {
		return err
	}
	report.ReportedAt = &at
	// Remembered for the whole window a signature is accepted in (the tolerance either side of
	// its timestamp), so a replay is refused until it is refused as too old.
	res, err := s.store.ApplySupplierPush(ctx, supplierID, suppliers.Digest(body, signature), 2*suppliers.DefaultTolerance, report)
	if errors.Is(err, db.ErrReplayed) {
		return newError(http.StatusConflict, "replayed", "this signed push was already received and applied: "+
			"a new report is signed anew")
	}
	if err != nil {
		return err
	}
	s.meta.forget()
	s.cfg.Logger.InfoContext(c.Request().Context(), "supplier stock pushed", "supplier", supplierID, "hotelId", res.HotelID, "nights", res.Nights,
		"stale", res.Stale, "conflicts", res.Conflicts)
	return c.JSON(http.StatusOK, res)
}

// hotelStock lists a hotel's nights in [from, to): total, sold, held, blocked, available, and
// when and from where each total came.
func (s *Server) hotelStock(c echo.Context) error {
	hotelID := c.Param("hotelId")
	if err := s.mayManageRules(c, hotelID); err != nil {
		return err
	}
	span, err := queryRange(c)
	if err != nil {
		return err
	}
	nights, err := s.store.HotelStock(c.Request().Context(), hotelID, span.CheckIn, span.CheckOut)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"hotelId": hotelID, "nights": nights})
}

// syncSupplier pulls a direct_procure supplier's stock now, as its schedule does every
// SUPPLIER_SYNC_INTERVAL: one SupplierSync workflow per supplier at a time (a request while one
// runs joins it). It answers the pull's result, or 202 with the workflow's id when the pull
// takes longer than the API waits. Admins, and the supplier's own staff.
func (s *Server) syncSupplier(c echo.Context) error {
	supplierID := c.Param("supplierId")
	if err := domain.ValidateID("supplierId", supplierID); err != nil {
		return err
	}
	if !principal(c).CanManageRules(supplierID) {
		return newError(http.StatusForbidden, "forbidden", "you do not work for supplier %s", supplierID)
	}
	ctx := c.Request().Context()
	sup, err := s.store.GetSupplier(ctx, supplierID)
	if err != nil {
		return err
	}
	switch {
	case sup.Mode != db.ModeDirectProcure:
		return newError(http.StatusConflict, "nothing_to_pull", "supplier %s is %s: it keeps no stock here", supplierID, sup.Mode)
	case sup.Endpoint == "":
		return newError(http.StatusConflict, "nothing_to_pull", "supplier %s has no endpoint to pull from: it pushes its stock", supplierID)
	}
	_, id := s.cfg.ScheduleIDs.SupplierSync(supplierID)
	run, err := s.temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: s.cfg.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
	}, workflows.SupplierSyncWorkflowName, supplierID)
	if err != nil {
		return err
	}
	if err := s.audit(c, "sync-supplier", "", "", map[string]any{"supplierId": supplierID, "workflowId": id}); err != nil {
		return err
	}
	wait, cancel := context.WithTimeout(ctx, s.cfg.WorkflowTimeout)
	defer cancel()
	var out struct { // activities.PullResult
		Hotels []db.SyncResult `json:"hotels"`
		Failed []string        `json:"failed"`
	}
	if err := run.Get(wait, &out); err != nil {
		// The wait running out shows as the context's error or the server's: ask whether the
		// pull itself goes on.
		d, derr := s.temporal.DescribeWorkflow(ctx, id, run.GetRunID())
		if derr == nil && d.Status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			return c.JSON(http.StatusAccepted, map[string]any{"supplierId": supplierID, "workflowId": id, "runId": run.GetRunID()})
		}
		s.cfg.Logger.ErrorContext(c.Request().Context(), "supplier sync failed", "supplier", supplierID, "workflowId", id, "err", err)
		return newError(http.StatusServiceUnavailable, "sync_failed", "the pull of supplier %s failed; the schedule tries again", supplierID)
	}
	if out.Hotels == nil {
		out.Hotels = []db.SyncResult{}
	}
	if out.Failed == nil {
		out.Failed = []string{}
	}
	return c.JSON(http.StatusOK, map[string]any{"supplierId": supplierID, "workflowId": id, "hotels": out.Hotels,
		"failed": out.Failed})
}

// SupplierOpenAPIPath is where the API serves the supplier-facing OpenAPI document
// (suppliers/openapi.yaml), as JSON, for integrators building a supplier.
const SupplierOpenAPIPath = "/api/v1/supplier-openapi.json"

// supplierOpenAPI is the supplier-facing document as JSON, made once.
var supplierOpenAPI = sync.OnceValues(func() ([]byte, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(suppliers.OpenAPIYAML)
	if err != nil {
		return nil, fmt.Errorf("load suppliers/openapi.yaml: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("validate suppliers/openapi.yaml: %w", err)
	}
	return json.Marshal(doc)
})

// serveSupplierOpenAPI answers the supplier-facing document, to anyone.
func serveSupplierOpenAPI(c echo.Context) error {
	raw, err := supplierOpenAPI()
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=300")
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, raw)
}
