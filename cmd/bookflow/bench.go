package main

import (
	"context"
	"errors"
)

func runBench(ctx context.Context, cfg Config) error { return errors.New("not yet") }
