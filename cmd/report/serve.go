package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/jobs"
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
	srv, err := newServer(st, c.PageSize, slog.New(slog.NewTextHandler(stderr, nil)))
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
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
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
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL is not a valid PostgreSQL URL: %w", err)
	}
	cfg.MaxConns = 8
	cfg.ConnConfig.RuntimeParams["default_transaction_read_only"] = "on"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("opening the pool: %w", err)
	}
	return store.New(pool), nil
}

// server is the review page: GET routes only.
type server struct {
	st       *store.Store
	site     *site
	pageSize int
	log      *slog.Logger
	mux      *http.ServeMux
}

func newServer(st *store.Store, pageSize int, log *slog.Logger) (*server, error) {
	s, err := newSite()
	if err != nil {
		return nil, err
	}
	srv := &server{st: st, site: s, pageSize: pageSize, log: log, mux: http.NewServeMux()}
	// Patterns with a method match GET and HEAD only; the mux answers any other method with 405.
	srv.mux.HandleFunc("GET /{$}", srv.index)
	srv.mux.HandleFunc("GET /statements/{id}", srv.statement)
	srv.mux.HandleFunc("GET /traces/{id}", srv.trace)
	srv.mux.HandleFunc("GET /style.css", srv.css)
	return srv, nil
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// No script, no frames, no third-party anything; links to sources leak no review URL.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	s.mux.ServeHTTP(w, r)
}

var live = links{root: "/", live: true}

func (s *server) index(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f, form, pageNo, err := liveFilter(q)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.Limit, f.Offset = s.pageSize+1, (pageNo-1)*s.pageSize
	rows, err := s.st.Statements(r.Context(), f)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	f.Limit, f.Offset = 0, 0
	total, err := s.st.CountStatements(r.Context(), f)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	sum, err := s.st.Summary(r.Context(), f)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	data := indexPage{
		page:    page{Title: "Review", Links: live, Live: true},
		Heading: "Review", Batch: describe(f), Summary: sum, Total: total, Form: form,
		Verdicts: store.Verdicts, Statuses: []string{store.RunDone, store.RunFailed}, Page: pageNo,
	}
	if len(rows) > s.pageSize {
		rows = rows[:s.pageSize]
		data.Next = pageURL(q, pageNo+1)
	}
	if pageNo > 1 {
		data.Prev = pageURL(q, pageNo-1)
	}
	data.Statements = rows
	s.write(w, r, "index", data)
}

// liveFilter reads the list's filters from the query string: q (text), verdict, status,
// method, from and to (dates, to inclusive), page (from 1).
func liveFilter(q url.Values) (store.ReportFilter, formValues, int, error) {
	form := formValues{Q: strings.TrimSpace(q.Get("q")), Verdict: q.Get("verdict"), Status: q.Get("status"), From: q.Get("from"), To: q.Get("to")}
	f := store.ReportFilter{Text: form.Q, Verdict: form.Verdict, Status: form.Status, Method: q.Get("method"), ExternalIDPrefix: q.Get("id")}
	var problems []string
	for _, d := range []struct {
		name, value string
		t           *time.Time
		days        int
	}{{"from", form.From, &f.Since, 0}, {"to", form.To, &f.Until, 1}} {
		if d.value == "" {
			continue
		}
		t, err := time.ParseInLocation(time.DateOnly, d.value, time.Local)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s=%q: give a date as YYYY-MM-DD", d.name, d.value))
			continue
		}
		*d.t = t.AddDate(0, 0, d.days)
	}
	if f.Method != "" && !jobs.KnownMethod(f.Method) {
		problems = append(problems, fmt.Sprintf("method=%q: use one of %s", f.Method, strings.Join(jobs.Methods, ", ")))
	}
	if f.Verdict != "" && !slices.Contains(store.Verdicts, f.Verdict) {
		problems = append(problems, fmt.Sprintf("verdict=%q: use one of %s", f.Verdict, strings.Join(store.Verdicts, ", ")))
	} else if err := f.Validate(); err != nil {
		problems = append(problems, err.Error())
	}
	pageNo := 1
	if p := q.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 100000 {
			problems = append(problems, fmt.Sprintf("page=%q: give a page number from 1", p))
		} else {
			pageNo = n
		}
	}
	if len(problems) > 0 {
		return f, form, 0, errors.New("bad filter: " + strings.Join(problems, "; "))
	}
	return f, form, pageNo, nil
}

func pageURL(q url.Values, n int) string {
	v := url.Values{}
	for k, vals := range q {
		v[k] = vals
	}
	v.Set("page", strconv.Itoa(n))
	return "/?" + v.Encode()
}

func (s *server) statement(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	sp, err := s.st.Statement(r.Context(), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	title := "Statement " + cmpOr(sp.Statement.ExternalID, fmt.Sprint(id))
	s.write(w, r, "statement", newStatementPage(page{Title: title, Links: live, Live: true}, sp))
}

func (s *server) trace(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	t, err := s.st.Trace(r.Context(), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.write(w, r, "trace", tracePage{page: page{Title: fmt.Sprintf("Trace of run %d", id), Links: live, Live: true}, Trace: t})
}

func (s *server) css(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "max-age=3600")
	_, _ = w.Write(s.site.css)
}

// pathID reads the {id} of the path; anything but a positive number is a page that does not
// exist.
func pathID(w http.ResponseWriter, r *http.Request) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id < 1 {
		http.NotFound(w, r)
		return 0, false
	}
	return id, true
}

func (s *server) write(w http.ResponseWriter, r *http.Request, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := s.site.render(w, name, data); err != nil {
		s.fail(w, r, err)
	}
}

func (s *server) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, store.ErrNotFound) {
		http.NotFound(w, r)
		return
	}
	if r.Context().Err() != nil {
		return
	}
	s.log.Error("review page", "path", r.URL.Path, "error", err)
	http.Error(w, "the review page could not read PostgreSQL; the error is in the server's log", http.StatusInternalServerError)
}
