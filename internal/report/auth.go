package report

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/argon2"

	"github.com/corroborate/corroborate/internal/store"
)

// Secrets of editor accounts are hashed with argon2id at the parameters RFC 9106 and OWASP
// give for a server (19 MiB, 2 passes, 1 lane), in the PHC string format, so that a leaked
// editor_accounts table does not give the secrets away.
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
)

// NewSecret returns a random secret for a new editor account: 24 random bytes, base64url.
func NewSecret() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

// HashSecret returns the argon2id hash of secret with a new random salt, as
// $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>.
func HashSecret(secret string) string {
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	key := argon2.IDKey([]byte(secret), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key))
}

// CheckSecret reports whether secret matches hash (HashSecret's format, with the parameters
// the hash names), in constant time.
func CheckSecret(hash, secret string) bool {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var m, t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil || m == 0 || t == 0 || p == 0 || m > 1<<20 || t > 16 {
		return false
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	want, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false
	}
	got := argon2.IDKey([]byte(secret), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// EditorName is what an editor account may be called: lower-case letters, digits, '.', '_'
// and '-', starting with a letter or digit (editor_accounts checks the same).
var EditorName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// Accounts is what sign-in reads; *store.Store implements it.
type Accounts interface {
	EditorAccount(ctx context.Context, name string) (store.EditorAccount, error)
}

// Decider records editor decisions; *store.Store implements it (opened writable, as a role
// that may insert decisions and nothing else).
type Decider interface {
	Decide(ctx context.Context, d store.Decision) (store.Decided, error)
}

// Recheck publishes a re-check of the statement of run and returns its job id.
type Recheck func(ctx context.Context, runID int64) (jobID string, err error)

// AuthConfig turns the review page's editing on. With neither Accounts nor ProxyHeader set the
// page is read-only: it has no form that changes anything and refuses every POST.
type AuthConfig struct {
	// Accounts are the editors who sign in with their name and secret (report users add).
	Accounts Accounts
	// ProxyHeader, instead, names the header a trusted reverse proxy sets to the signed-in
	// editor's name (single sign-on). The proxy must strip it from clients' requests, and the
	// review page must be reachable through the proxy only.
	ProxyHeader string
	// Decisions records the decisions.
	Decisions Decider
	// Recheck publishes re-checks; nil: the page offers no re-check.
	Recheck Recheck
	// SecureCookies marks the session cookie Secure even on plain HTTP, for a page served over
	// TLS by a proxy in front of it (a request that came over TLS gets Secure always).
	SecureCookies bool
	// SessionTTL bounds a session (default 12 hours).
	SessionTTL time.Duration
	// MaxFailures is how many wrong secrets a name, or a client address, may send within
	// FailureWindow before sign-in refuses it with 429 without checking (defaults 5 and 15
	// minutes).
	MaxFailures   int
	FailureWindow time.Duration
	// Now is the clock (default time.Now), for tests.
	Now func() time.Time
}

const (
	sessionCookie = "corroborate_session"
	signinCookie  = "corroborate_signin"
)

type session struct {
	editor  string
	expires time.Time
}

// auth holds the sessions, the CSRF key and the failed sign-ins of one server, in memory: a
// restart signs every editor out, and nothing of it is written to PostgreSQL.
type auth struct {
	cfg      AuthConfig
	key      []byte
	mu       sync.Mutex
	sessions map[string]session
	failures map[string][]time.Time
}

func newAuth(cfg AuthConfig) *auth {
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = 12 * time.Hour
	}
	if cfg.MaxFailures <= 0 {
		cfg.MaxFailures = 5
	}
	if cfg.FailureWindow <= 0 {
		cfg.FailureWindow = 15 * time.Minute
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	return &auth{cfg: cfg, key: key, sessions: map[string]session{}, failures: map[string][]time.Time{}}
}

// editor returns the signed-in editor of r and the id its CSRF token is bound to, or "".
func (a *auth) editor(r *http.Request) (name, bound string) {
	if a.cfg.ProxyHeader != "" {
		name = strings.TrimSpace(r.Header.Get(a.cfg.ProxyHeader))
		if name == "" {
			return "", ""
		}
		return name, "proxy:" + name
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return "", ""
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[c.Value]
	if !ok || a.cfg.Now().After(s.expires) {
		delete(a.sessions, c.Value)
		return "", ""
	}
	return s.editor, "session:" + c.Value
}

// csrf is the CSRF token of bound (a session, or a proxy-signed-in editor, or a sign-in form's
// cookie): an HMAC under the server's key, so that a page of another site can neither read nor
// forge it.
func (a *auth) csrf(bound string) string {
	m := hmac.New(sha256.New, a.key)
	m.Write([]byte(bound))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (a *auth) csrfOK(bound, token string) bool {
	return bound != "" && token != "" && hmac.Equal([]byte(a.csrf(bound)), []byte(token))
}

// limited reports whether sign-in from keys (an account name, a client address) is refused for
// too many recent failures.
func (a *auth) limited(keys ...string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	since := a.cfg.Now().Add(-a.cfg.FailureWindow)
	for _, k := range keys {
		recent := a.failures[k][:0]
		for _, t := range a.failures[k] {
			if t.After(since) {
				recent = append(recent, t)
			}
		}
		a.failures[k] = recent
		if len(recent) >= a.cfg.MaxFailures {
			return true
		}
	}
	return false
}

func (a *auth) failed(keys ...string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, k := range keys {
		a.failures[k] = append(a.failures[k], a.cfg.Now())
	}
}

// signIn checks name and secret against the accounts and returns a new session id.
func (a *auth) signIn(ctx context.Context, name, secret string) (string, error) {
	acct, err := a.cfg.Accounts.EditorAccount(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		// Spend the same work as a wrong secret, so that timing does not tell which names exist.
		CheckSecret(dummyHash(), secret)
		return "", errWrongSecret
	}
	if err != nil {
		return "", err
	}
	if acct.Disabled || !CheckSecret(acct.PasswordHash, secret) {
		return "", errWrongSecret
	}
	id := NewSecret()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sessions[id] = session{editor: acct.Name, expires: a.cfg.Now().Add(a.cfg.SessionTTL)}
	return id, nil
}

var (
	errWrongSecret = errors.New("wrong name or secret")
	dummyHash      = sync.OnceValue(func() string { return HashSecret("no account has this secret") })
)

func (a *auth) signOut(r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		a.mu.Lock()
		delete(a.sessions, c.Value)
		a.mu.Unlock()
	}
}

// cookie is a cookie of the review page: HttpOnly, SameSite=Strict, Secure over TLS.
func (a *auth) cookie(r *http.Request, name, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil || a.cfg.SecureCookies}
}

// clientAddr is the address a sign-in came from, for its rate limit.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
