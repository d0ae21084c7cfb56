package main

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

type pingFunc func(context.Context) error

func (p pingFunc) Ping(ctx context.Context) error { return p(ctx) }

// TestAWorkerIsReadyOnlyWhilePollingWithItsStoresUp: a worker's /readyz says ready only once it
// polls its task queue, and only while PostgreSQL and Temporal answer.
func TestAWorkerIsReadyOnlyWhilePollingWithItsStoresUp(t *testing.T) {
	var polling atomic.Bool
	var dbDown, temporalDown error
	ready := workerReady(&polling, pingFunc(func(context.Context) error { return dbDown }),
		func(context.Context) error { return temporalDown })
	ctx := context.Background()
	assert.ErrorContains(t, ready(ctx), "not polling", "before the worker starts")
	polling.Store(true)
	assert.NoError(t, ready(ctx))
	dbDown = errors.New("connection refused")
	assert.ErrorContains(t, ready(ctx), "database")
	dbDown, temporalDown = nil, errors.New("unavailable")
	assert.ErrorContains(t, ready(ctx), "temporal")
	temporalDown = nil
	polling.Store(false)
	assert.Error(t, ready(ctx), "stopping")
}
