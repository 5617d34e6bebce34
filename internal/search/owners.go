package search

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
)

// DefaultOwnersRefresh is how often WithOrganisations reads the owners table again: an editor's
// `corpus owners add` reaches running workers within it.
const DefaultOwnersRefresh = time.Minute

// OwnersLoader returns the owners table: registrable domain -> organisation (the worker passes
// store.Store.SourceOwnerMap, over source_owners).
type OwnersLoader func(ctx context.Context) (map[string]string, error)

// OrganisationsOpts tunes WithOrganisations.
type OrganisationsOpts struct {
	// Refresh is how long a read of the table is used; 0 means DefaultOwnersRefresh.
	Refresh time.Duration
	// Now tells the time; nil means time.Now. Tests move it.
	Now func() time.Time
	// Logger hears about refreshes that failed (the last table read is used meanwhile); nil
	// means slog.Default().
	Logger *slog.Logger
}

// Organisations is a Searcher that gives each result of the one it wraps the organisation that
// owns its registrable domain (SearchResult.Organisation), from the owners table, so that
// independence counts one organisation as one publisher whichever provider answered: the
// corpus, SearxNG or Brave. The page's own publisher name is kept in Publisher.
//
// It also keeps a query's publisher exclusions across an organisation's domains: a query that
// excludes "Associated Press" excludes apnews.com and ap.org, and a result whose organisation is
// an excluded publisher is left out (the providers only see the pages' own names).
type Organisations struct {
	next pipeline.Searcher
	load OwnersLoader
	opts OrganisationsOpts

	mu       sync.Mutex
	table    map[string]string   // registrable domain -> organisation
	domains  map[string][]string // normalised organisation -> its domains, sorted
	loadedAt time.Time
}

// WithOrganisations wraps next; load is read at the first search and every Refresh after.
func WithOrganisations(next pipeline.Searcher, load OwnersLoader, opts OrganisationsOpts) *Organisations {
	opts.Refresh = cmp.Or(opts.Refresh, DefaultOwnersRefresh)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Organisations{next: next, load: load, opts: opts}
}

// Name is the wrapped provider's name, when it has one.
func (o *Organisations) Name() string {
	if p, ok := o.next.(Provider); ok {
		return p.Name()
	}
	return ""
}

// Search runs q, its publisher exclusions widened to their organisations' domains, and gives
// each result its organisation.
func (o *Organisations) Search(ctx context.Context, q pipeline.SearchQuery) (pipeline.SearchResponse, error) {
	table, domains, err := o.current(ctx)
	if err != nil {
		return pipeline.SearchResponse{Provider: o.Name()}, err
	}
	excluded := map[string]bool{}
	for _, p := range q.ExcludePublishers {
		name := evidence.NormalizePublisher(p)
		excluded[name] = true
		for _, d := range domains[name] {
			if !slices.Contains(q.ExcludeDomains, d) {
				q.ExcludeDomains = append(slices.Clip(q.ExcludeDomains), d)
			}
		}
	}
	resp, err := o.next.Search(ctx, q)
	if err != nil {
		return resp, err
	}
	kept := resp.Results[:0:0]
	for _, r := range resp.Results {
		host := r.Domain
		if host == "" {
			host = Domain(r.URL)
		}
		if org, ok := table[evidence.RegistrableDomain(host)]; ok {
			r.Organisation = org
		}
		if r.Organisation != "" && excluded[evidence.NormalizePublisher(r.Organisation)] {
			continue
		}
		r.Rank = len(kept) + 1
		kept = append(kept, r)
	}
	resp.Results = kept
	return resp, nil
}

// current returns the table, reading it again when Refresh has passed. A failed refresh keeps the
// last table (logged); with none read yet the search fails, since without it one organisation's
// domains would count as independent sources.
func (o *Organisations) current(ctx context.Context) (map[string]string, map[string][]string, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	now := o.opts.Now()
	if o.table != nil && now.Sub(o.loadedAt) < o.opts.Refresh {
		return o.table, o.domains, nil
	}
	table, err := o.load(ctx)
	if err != nil {
		if o.table != nil {
			o.opts.Logger.Warn("reading the source owners table failed; using the last one read", "error", err, "read_at", o.loadedAt)
			o.loadedAt = now // try again after another Refresh, not on every search
			return o.table, o.domains, nil
		}
		return nil, nil, fmt.Errorf("search: reading the source owners table (source_owners; is migration 00008 applied?): %w", err)
	}
	domains := map[string][]string{}
	clean := make(map[string]string, len(table))
	for d, org := range table {
		d = strings.ToLower(strings.TrimSpace(d))
		if d == "" || strings.TrimSpace(org) == "" {
			continue
		}
		clean[d] = org
		name := evidence.NormalizePublisher(org)
		domains[name] = append(domains[name], d)
	}
	for _, ds := range domains {
		slices.Sort(ds)
	}
	o.table, o.domains, o.loadedAt = clean, domains, now
	return o.table, o.domains, nil
}
