package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
)

// A second worker on one host finds the metrics port taken by the first: it serves on a free
// port of the same host and says which, instead of ending (it ended with "address already in
// use" before).
func TestSecondWorkerOnOneHostDoesNotDieOnTheMetricsPort(t *testing.T) {
	t.Parallel()
	first, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, err := serveMetrics(ctx, first.Addr().String(), newMetrics(), func(context.Context) error { return nil },
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("the second worker's metrics server: %v", err)
	}
	if addr == first.Addr().String() {
		t.Fatalf("served on the taken address %s", addr)
	}
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "ok\n" {
		t.Fatalf("/healthz on %s: %d %q", addr, resp.StatusCode, body)
	}
}
