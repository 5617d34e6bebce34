package report

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/store"
)

// Server is the live review page, an http.Handler: / lists statements with search and
// filters, /statements/<id> and /traces/<run> as in the static report. It has GET routes only
// unless EnableEditing adds sign-in and editor decisions.
type Server struct {
	st       Reports
	site     *site
	pageSize int
	log      *slog.Logger
	mux      *http.ServeMux
	auth     *auth
	// publisher, when set, makes statement pages embed the ClaimReview of published claims.
	publisher *Publisher
}

// Publish makes statement pages embed the schema.org ClaimReview JSON-LD of each claim whose
// standing verdict an editor decided, published by p.
func (s *Server) Publish(p Publisher) { s.publisher = &p }

// NewServer returns the review page over st, listing pageSize statements a page and logging
// failed reads to log. Give it a read-only store (store.OpenReadOnly).
func NewServer(st Reports, pageSize int, log *slog.Logger) (*Server, error) {
	s, err := newSite()
	if err != nil {
		return nil, err
	}
	srv := &Server{st: st, site: s, pageSize: pageSize, log: log, mux: http.NewServeMux()}
	// Patterns with a method match GET and HEAD only; the mux answers any other method with 405.
	srv.mux.HandleFunc("GET /{$}", srv.index)
	srv.mux.HandleFunc("GET /statements/{id}", srv.statement)
	srv.mux.HandleFunc("GET /traces/{id}", srv.trace)
	srv.mux.HandleFunc("GET /style.css", srv.css)
	return srv, nil
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// No script, no frames, no third-party anything; links to sources leak no review URL.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10) // a decision is a few fields
	}
	s.mux.ServeHTTP(w, r)
}

// EnableEditing adds sign-in (GET and POST /signin, POST /signout) and editor decisions (POST
// /decisions) to the page. Every POST carries a CSRF token bound to its session (or, for the
// sign-in form, to a cookie of its own); a POST without a signed-in editor, without the token or
// with a wrong one is refused with 403 and changes nothing.
func (s *Server) EnableEditing(cfg AuthConfig) error {
	if (cfg.Accounts == nil) == (cfg.ProxyHeader == "") {
		return errors.New("report: editing needs editor accounts or a trusted proxy header, one of the two")
	}
	if cfg.Decisions == nil {
		return errors.New("report: editing needs a store to record decisions in")
	}
	s.auth = newAuth(cfg)
	if cfg.Accounts != nil {
		s.mux.HandleFunc("GET /signin", s.signinForm)
		s.mux.HandleFunc("POST /signin", s.signin)
		s.mux.HandleFunc("POST /signout", s.signout)
	}
	s.mux.HandleFunc("POST /decisions", s.decide)
	return nil
}

// pageFor is the layout's data of a page of this server for r: who is signed in, and the token
// their forms carry.
func (s *Server) pageFor(r *http.Request, title string) page {
	p := page{Title: title, Links: live, Live: true}
	if s.auth != nil {
		p.Editing = true
		var bound string
		p.Editor, bound = s.auth.editor(r)
		if p.Editor != "" {
			p.CSRF = s.auth.csrf(bound)
		}
		p.CanRecheck = s.auth.cfg.Recheck != nil
		p.SignIn = s.auth.cfg.Accounts != nil
	}
	return p
}

var live = links{root: "/", live: true}

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f, form, pageNo, err := liveFilter(q)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.Limit, f.Offset = s.pageSize+1, (pageNo-1)*s.pageSize
	f.ByAttention = true
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
		page:    s.pageFor(r, "Review"),
		Heading: "Review", Batch: Describe(f), Summary: sum, Total: total, Form: form,
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
	// PostgreSQL refuses a NUL byte and invalid UTF-8 in text; a filter carrying one is a bad
	// filter, said as such, not a query that fails with a 500.
	for _, name := range slices.Sorted(maps.Keys(q)) {
		for _, v := range q[name] {
			if strings.ContainsRune(v, 0) || !utf8.ValidString(v) {
				problems = append(problems, fmt.Sprintf("%s=%q: text must be UTF-8 without NUL bytes", name, v))
				break
			}
		}
	}
	if len(problems) > 0 {
		return store.ReportFilter{}, formValues{}, 0, errors.New("bad filter: " + strings.Join(problems, "; "))
	}
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
		problems = append(problems, fmt.Sprintf("method=%q: use one of %s", f.Method, strings.Join(pipeline.MethodNames(), ", ")))
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

func (s *Server) statement(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	sp, err := s.st.Statement(r.Context(), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	title := "Statement " + cmp.Or(sp.Statement.ExternalID, fmt.Sprint(id))
	s.write(w, r, "statement", newStatementPage(s.pageFor(r, title), sp).withClaimReviews(s.publisher, sp))
}

func (s *Server) trace(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	t, err := s.st.Trace(r.Context(), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.write(w, r, "trace", tracePage{page: s.pageFor(r, fmt.Sprintf("Trace of run %d", id)), Trace: t})
}

func (s *Server) css(w http.ResponseWriter, r *http.Request) {
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

func (s *Server) write(w http.ResponseWriter, r *http.Request, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := s.site.render(w, name, data); err != nil {
		s.fail(w, r, err)
	}
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
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
