package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/report"
	"github.com/corroborate/corroborate/internal/store"
)

type serveConfig struct {
	DatabaseURL string
	Addr        string
	PageSize    int
}

func serveFlags(c *serveConfig) *envflag.Set {
	fs := envflag.New("report serve", "Usage: report serve [flags]\n\n"+
		"Serves the report's pages live from PostgreSQL, read-only (every query runs in a read-only\n"+
		"transaction; there is no route that changes anything): / lists statements with search by\n"+
		"text and filters by verdict, status and date; /statements/<id> and /traces/<run> as in the\n"+
		"static report. It has no login: keep it on loopback or behind your own authenticating proxy.")
	fs.String(&c.DatabaseURL, "database-url", "DATABASE_URL", "", "PostgreSQL URL")
	fs.String(&c.Addr, "addr", "CORROBORATE_REPORT_ADDR", "127.0.0.1:8080", "address to listen on")
	fs.Int(&c.PageSize, "page-size", "CORROBORATE_REPORT_PAGE_SIZE", 50, "statements per page of the list")
	return fs
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var c serveConfig
	fs := serveFlags(&c)
	if code, ok := parse("serve", fs, args, stderr); !ok {
		return code
	}
	var problems []string
	if c.DatabaseURL == "" {
		problems = append(problems, "no database: set DATABASE_URL or --database-url")
	}
	if c.PageSize < 1 || c.PageSize > 1000 {
		problems = append(problems, fmt.Sprintf("--page-size %d: give 1 to 1000", c.PageSize))
	}
	if len(problems) > 0 {
		fmt.Fprintln(stderr, "report serve:", strings.Join(problems, "; "))
		return exitInvalid
	}
	st, err := openReadOnly(ctx, c.DatabaseURL)
	if err != nil {
		fmt.Fprintln(stderr, "report serve:", err)
		return exitError
	}
	defer st.Close()
	srv, err := report.NewServer(st, c.PageSize, slog.New(slog.NewTextHandler(stderr, nil)))
	if err != nil {
		fmt.Fprintln(stderr, "report serve:", err)
		return exitError
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		fmt.Fprintf(stderr, "report serve: cannot listen on %s: %v\n", c.Addr, err)
		return exitError
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 2 * time.Minute}
	fmt.Fprintf(stdout, "review page (read-only) on http://%s/\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintln(stderr, "report serve:", err)
		return exitError
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_ = hs.Shutdown(shutdown)
	return exitOK
}

// openReadOnly applies the migrations (so that the views exist), then returns a store whose
// every transaction is read-only: the review page cannot change a result even by mistake.
func openReadOnly(ctx context.Context, databaseURL string) (*store.Store, error) {
	owner, err := openStore(ctx, databaseURL)
	if err != nil {
		return nil, err
	}
	owner.Close()
	return store.OpenReadOnly(ctx, store.Config{URL: databaseURL, MaxConns: 8})
}
