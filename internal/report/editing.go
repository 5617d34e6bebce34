package report

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/corroborate/corroborate/internal/store"
)

// signinPage is the sign-in form.
type signinPage struct {
	page
	Name    string
	Problem string
}

func (s *Server) signinForm(w http.ResponseWriter, r *http.Request) {
	s.writeSignin(w, r, http.StatusOK, "", "")
}

// writeSignin renders the sign-in form with a CSRF token bound to a cookie of the form's own
// (double submit: a page of another site can neither read the cookie nor send it, SameSite).
func (s *Server) writeSignin(w http.ResponseWriter, r *http.Request, status int, name, problem string) {
	nonce := ""
	if c, err := r.Cookie(signinCookie); err == nil && c.Value != "" {
		nonce = c.Value
	} else {
		nonce = NewSecret()
		http.SetCookie(w, s.auth.cookie(r, signinCookie, nonce, 3600))
	}
	p := s.pageFor(r, "Sign in")
	p.CSRF = s.auth.csrf("signin:" + nonce)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := s.site.render(w, "signin", signinPage{page: p, Name: name, Problem: problem}); err != nil {
		s.log.Error("review page", "path", r.URL.Path, "error", err)
	}
}

func (s *Server) signin(w http.ResponseWriter, r *http.Request) {
	c, err := r.Cookie(signinCookie)
	if err != nil || !s.auth.csrfOK("signin:"+c.Value, r.PostFormValue("csrf")) {
		http.Error(w, "refused: this form's security token is missing or wrong; open the sign-in page again", http.StatusForbidden)
		return
	}
	name := strings.TrimSpace(r.PostFormValue("name"))
	keys := []string{"name:" + name, "addr:" + clientAddr(r)}
	if s.auth.limited(keys...) {
		w.Header().Set("Retry-After", strconv.Itoa(int(s.auth.cfg.FailureWindow.Seconds())))
		http.Error(w, "too many wrong secrets: sign-in is paused for this name and address; try again later", http.StatusTooManyRequests)
		return
	}
	id, err := s.auth.signIn(r.Context(), name, r.PostFormValue("secret"))
	if errors.Is(err, errWrongSecret) {
		s.auth.failed(keys...)
		s.log.Warn("review page: failed sign-in", "name", name, "addr", clientAddr(r))
		s.writeSignin(w, r, http.StatusUnauthorized, name, "Wrong name or secret.")
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	http.SetCookie(w, s.auth.cookie(r, sessionCookie, id, int(s.auth.cfg.SessionTTL.Seconds())))
	http.SetCookie(w, s.auth.cookie(r, signinCookie, "", -1))
	s.log.Info("review page: signed in", "editor", name)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (s *Server) signout(w http.ResponseWriter, r *http.Request) {
	editor, bound := s.auth.editor(r)
	if editor == "" || !s.auth.csrfOK(bound, r.PostFormValue("csrf")) {
		http.Error(w, "refused: not signed in, or this form's security token is missing or wrong", http.StatusForbidden)
		return
	}
	s.auth.signOut(r)
	http.SetCookie(w, s.auth.cookie(r, sessionCookie, "", -1))
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// decide records an editor's decision on one claim: fields run, position, decision (approve,
// override, recheck), verdict and reason (an override), csrf.
func (s *Server) decide(w http.ResponseWriter, r *http.Request) {
	editor, bound := s.auth.editor(r)
	if editor == "" {
		http.Error(w, "refused: sign in to record a decision", http.StatusForbidden)
		return
	}
	if !s.auth.csrfOK(bound, r.PostFormValue("csrf")) {
		http.Error(w, "refused: this form's security token is missing or wrong; reload the page and decide again", http.StatusForbidden)
		return
	}
	runID, err1 := strconv.ParseInt(r.PostFormValue("run"), 10, 64)
	position, err2 := strconv.Atoi(r.PostFormValue("position"))
	d := store.Decision{Editor: editor, RunID: runID, Position: position, Kind: r.PostFormValue("decision"),
		Verdict: r.PostFormValue("verdict"), Reason: r.PostFormValue("reason")}
	if d.Kind != store.DecisionOverride {
		d.Verdict = "" // the override form's verdict list is not part of the other decisions
	}
	if err1 != nil || err2 != nil {
		http.Error(w, "bad decision: run and position must be numbers", http.StatusBadRequest)
		return
	}
	if err := d.Validate(); err != nil {
		http.Error(w, "bad decision: "+err.Error(), http.StatusBadRequest)
		return
	}
	if d.Kind == store.DecisionRecheck {
		if s.auth.cfg.Recheck == nil {
			http.Error(w, "this review page cannot publish re-checks (started without NATS); use report review recheck", http.StatusServiceUnavailable)
			return
		}
		jobID, err := s.auth.cfg.Recheck(r.Context(), runID)
		if err != nil {
			s.decisionFailed(w, r, err)
			return
		}
		d.RecheckJobID = jobID
	}
	decided, err := s.auth.cfg.Decisions.Decide(r.Context(), d)
	if err != nil {
		s.decisionFailed(w, r, err)
		return
	}
	s.log.Info("review page: decision", "editor", editor, "decision", d.Kind, "run_id", runID, "position", position, "verdict", decided.Verdict)
	http.Redirect(w, r, fmt.Sprintf("/statements/%d#claim-%d", decided.StatementID, position), http.StatusSeeOther)
}

func (s *Server) decisionFailed(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, store.ErrNotFound):
		http.Error(w, "no such claim: "+err.Error(), http.StatusNotFound)
	case errors.Is(err, store.ErrNotLatestRun):
		http.Error(w, "this claim has been checked again since the page was loaded: "+err.Error(), http.StatusConflict)
	default:
		s.log.Error("review page: decision", "error", err)
		http.Error(w, "the decision could not be recorded; the error is in the server's log", http.StatusInternalServerError)
	}
}
