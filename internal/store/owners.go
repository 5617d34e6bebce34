package store

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"

	"github.com/corroborate/corroborate/internal/pipeline/evidence"
)

// SourceOwner is one row of source_owners: the organisation that owns a registrable domain, and
// where the editor who added it learnt so.
type SourceOwner struct {
	Domain       string    `db:"domain" json:"domain"`
	Organisation string    `db:"organisation" json:"organisation"`
	Source       string    `db:"source" json:"source"`
	AddedAt      time.Time `db:"added_at" json:"added_at"`
}

// maxOrganisationRunes bounds an organisation's name (the table's CHECK says 200 characters).
const maxOrganisationRunes = 200

// OwnerDomain returns the source_owners key for raw, a domain or a URL an editor typed: lower
// case, without "www.", a port or a trailing dot. It refuses, saying what to type instead, what
// no result could ever be looked up by: an empty string, an IP address, a single label, a
// public suffix ("co.uk", "github.io": anyone registers under it) and a subdomain
// ("news.bbc.co.uk": results are looked up by their registrable domain, bbc.co.uk).
func OwnerDomain(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", errors.New("the domain is empty: give a registrable domain such as apnews.com")
	}
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil || u.Hostname() == "" {
			return "", fmt.Errorf("%q is not a URL with a host: give a registrable domain such as apnews.com", raw)
		}
		s = u.Hostname()
	} else if h, _, err := net.SplitHostPort(s); err == nil {
		s = h
	}
	s = strings.TrimSuffix(strings.ToLower(s), ".")
	if strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune("/?#@:[]\\,;\"'", r) }) {
		return "", fmt.Errorf("%q is not a domain (it holds a space, a path or punctuation): give a registrable domain such as apnews.com", raw)
	}
	if net.ParseIP(s) != nil {
		return "", fmt.Errorf("%q is an IP address, not a domain an organisation registers: give its domain name", raw)
	}
	if !strings.Contains(s, ".") || strings.HasPrefix(s, ".") || strings.Contains(s, "..") {
		return "", fmt.Errorf("%q is not a registrable domain: give a name and its suffix, such as apnews.com", raw)
	}
	registrable := evidence.RegistrableDomain(s)
	switch {
	case registrable == strings.TrimPrefix(s, "www.") && isPublicSuffix(registrable):
		return "", fmt.Errorf("%q is a public suffix, under which anyone registers a domain: give the organisation's own domain under it", raw)
	case registrable != s && "www."+registrable != s:
		return "", fmt.Errorf("%q is a subdomain of %s, and results are looked up by their registrable domain: add %s", raw, registrable, registrable)
	}
	return registrable, nil
}

// isPublicSuffix reports whether the registrable-domain lookup returned d unchanged because d is
// a public suffix (or a name the list cannot place): a registrable domain has one label more
// than its suffix, so asking for a subdomain of it gives d back.
func isPublicSuffix(d string) bool { return evidence.RegistrableDomain("x."+d) != d }

// OwnerOrganisation returns an organisation's name as source_owners keeps it: spacing collapsed,
// not empty, no control characters, at most 200 characters.
func OwnerOrganisation(raw string) (string, error) {
	s := strings.Join(strings.Fields(raw), " ")
	switch {
	case s == "":
		return "", errors.New("the organisation is empty: give its name, such as \"Associated Press\"")
	case strings.ContainsFunc(s, unicode.IsControl):
		return "", fmt.Errorf("the organisation %q holds control characters", raw)
	case len([]rune(s)) > maxOrganisationRunes:
		return "", fmt.Errorf("the organisation's name is %d characters long; at most %d", len([]rune(s)), maxOrganisationRunes)
	}
	return s, nil
}

// AddSourceOwner records that organisation owns domain (see OwnerDomain and OwnerOrganisation for
// what each may be), with source saying where that is known from; a domain already listed gets
// the new organisation and source. It returns the row as stored.
func (s *Store) AddSourceOwner(ctx context.Context, domain, organisation, source string) (SourceOwner, error) {
	d, err := OwnerDomain(domain)
	if err != nil {
		return SourceOwner{}, err
	}
	org, err := OwnerOrganisation(organisation)
	if err != nil {
		return SourceOwner{}, err
	}
	rows, err := s.pool.Query(ctx, `
		INSERT INTO source_owners (domain, organisation, source) VALUES ($1, $2, $3)
		ON CONFLICT (domain) DO UPDATE SET organisation = EXCLUDED.organisation, source = EXCLUDED.source, added_at = now()
		RETURNING domain, organisation, source, added_at`, d, org, strings.TrimSpace(source))
	if err != nil {
		return SourceOwner{}, fmt.Errorf("store: adding the owner of %s: %w", d, err)
	}
	row, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[SourceOwner])
	if err != nil {
		return SourceOwner{}, fmt.Errorf("store: adding the owner of %s: %w", d, err)
	}
	return row, nil
}

// SourceOwners returns every row of source_owners, by organisation and domain.
func (s *Store) SourceOwners(ctx context.Context) ([]SourceOwner, error) {
	rows, err := s.pool.Query(ctx, `SELECT domain, organisation, source, added_at FROM source_owners ORDER BY organisation, domain`)
	if err != nil {
		return nil, fmt.Errorf("store: reading source_owners: %w", err)
	}
	owners, err := pgx.CollectRows(rows, pgx.RowToStructByName[SourceOwner])
	if err != nil {
		return nil, fmt.Errorf("store: reading source_owners: %w", err)
	}
	return owners, nil
}

// SourceOwnerMap returns source_owners as registrable domain -> organisation: what
// search.WithOrganisations looks results up in.
func (s *Store) SourceOwnerMap(ctx context.Context) (map[string]string, error) {
	owners, err := s.SourceOwners(ctx)
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(owners))
	for _, o := range owners {
		m[o.Domain] = o.Organisation
	}
	return m, nil
}
