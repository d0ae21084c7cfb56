package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"
)

// runHealth asks a URL (the API's /readyz, a worker's /metrics) and fails unless it answers
// 2xx within 3 s: the containers' healthcheck, since the image has no shell or curl.
func runHealth(ctx context.Context, _ Config) error {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: bookflow health <url>")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, os.Args[2], nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("%s answered %s", os.Args[2], res.Status)
	}
	return nil
}
