package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/corroborate/corroborate/internal/pipeline/text"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// FieldTemporalScope is the job message field the scope comes from.
const FieldTemporalScope = "options.temporal_scope"

// TemporalScope bounds the evidence of a multihop run in time: spec 004's
// {"start_date", "end_date", "prefer_recent"}.
type TemporalScope struct {
	// Start and End are the first and the last day of the scope, both included; the zero time
	// leaves that side open.
	Start, End time.Time
	// PreferRecent asks for temporal filters in every query: the scope's years are added to a
	// query that names none of them, and the most recent results are kept first.
	PreferRecent bool
}

// ParseTemporalScope reads options.temporal_scope: absent or null is no scope (nil). Otherwise
// it must be an object with only start_date and end_date (ISO 8601 calendar dates, YYYY-MM-DD)
// and prefer_recent (a boolean), naming at least one of them, with start_date before end_date.
// Anything else is a *RejectedError naming the field and the rule.
func ParseTemporalScope(raw []byte) (*TemporalScope, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var obj map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return nil, Rejected(FieldTemporalScope,
			`must be null or an object such as {"start_date": "2023-01-01", "end_date": "2024-12-31", "prefer_recent": true}`)
	}
	known := []string{"start_date", "end_date", "prefer_recent"}
	for k := range obj {
		if !slices.Contains(known, k) {
			return nil, Rejected(FieldTemporalScope+"."+k, "is not a field of the temporal scope (start_date, end_date, prefer_recent)")
		}
	}
	if len(obj) == 0 {
		return nil, Rejected(FieldTemporalScope, "is an empty object: give start_date, end_date or prefer_recent, or null for no scope")
	}
	var s TemporalScope
	for _, d := range []struct {
		key string
		t   *time.Time
	}{{"start_date", &s.Start}, {"end_date", &s.End}} {
		v, ok := obj[d.key]
		if !ok {
			continue
		}
		var date string
		if err := json.Unmarshal(v, &date); err != nil {
			return nil, Rejected(FieldTemporalScope+"."+d.key, "must be an ISO 8601 date string YYYY-MM-DD")
		}
		t, err := time.Parse(time.DateOnly, date)
		if err != nil {
			return nil, Rejected(FieldTemporalScope+"."+d.key, fmt.Sprintf("must be a calendar date as YYYY-MM-DD, got %q", text.Truncate(date, 40)))
		}
		*d.t = t
	}
	if v, ok := obj["prefer_recent"]; ok {
		if err := json.Unmarshal(v, &s.PreferRecent); err != nil {
			return nil, Rejected(FieldTemporalScope+".prefer_recent", "must be true or false")
		}
	}
	if !s.Start.IsZero() && !s.End.IsZero() && !s.Start.Before(s.End) {
		return nil, Rejected(FieldTemporalScope, fmt.Sprintf("start_date %s must precede end_date %s",
			s.Start.Format(time.DateOnly), s.End.Format(time.DateOnly)))
	}
	return &s, nil
}

// Bounds returns the scope as a SearchQuery's From (inclusive) and To (exclusive: the day after
// End). A nil scope has none.
func (s *TemporalScope) Bounds() (from, to time.Time) {
	if s == nil {
		return time.Time{}, time.Time{}
	}
	from = s.Start
	if !s.End.IsZero() {
		to = s.End.AddDate(0, 0, 1)
	}
	return from, to
}

// Bounded reports whether the scope limits dates at all.
func (s *TemporalScope) Bounded() bool { return s != nil && (!s.Start.IsZero() || !s.End.IsZero()) }

// Admits reports whether evidence published at t is inside the scope. Evidence of unknown date
// cannot be shown to be inside a bounded scope and is not admitted; without bounds everything is.
func (s *TemporalScope) Admits(t *time.Time) bool {
	if !s.Bounded() {
		return true
	}
	if t == nil {
		return false
	}
	from, to := s.Bounds()
	return (from.IsZero() || !t.Before(from)) && (to.IsZero() || t.Before(to))
}

// years returns the first and last year the scope covers, today's year for an open end.
func (s *TemporalScope) years(today time.Time) (first, last int) {
	first, last = today.Year(), today.Year()
	if !s.End.IsZero() {
		last = s.End.Year()
		first = last
	}
	if !s.Start.IsZero() {
		first = s.Start.Year()
	}
	return first, max(first, last)
}

var yearPattern = regexp.MustCompile(`\b(1[5-9][0-9]{2}|2[0-9]{3})\b`)

// ShapeQuery adds the scope's years to a query when prefer_recent asks for temporal filters and
// the query names no year inside the scope: "APOE4 cancer risk" becomes "APOE4 cancer risk 2023
// 2024". Other queries are returned unchanged.
func (s *TemporalScope) ShapeQuery(query string, today time.Time) string {
	if s == nil || !s.PreferRecent {
		return query
	}
	first, last := s.years(today)
	for _, y := range yearPattern.FindAllString(query, -1) {
		if n, _ := strconv.Atoi(y); n >= first && n <= last {
			return query
		}
	}
	if first == last {
		return query + " " + strconv.Itoa(first)
	}
	return query + " " + strconv.Itoa(first) + " " + strconv.Itoa(last)
}

// Describe says the scope in words for the plan prompt; "" for no scope.
func (s *TemporalScope) Describe(today time.Time) string {
	if s == nil {
		return ""
	}
	var parts []string
	switch {
	case !s.Start.IsZero() && !s.End.IsZero():
		parts = append(parts, fmt.Sprintf("evidence published from %s to %s", s.Start.Format(time.DateOnly), s.End.Format(time.DateOnly)))
	case !s.Start.IsZero():
		parts = append(parts, "evidence published on or after "+s.Start.Format(time.DateOnly))
	case !s.End.IsZero():
		parts = append(parts, "evidence published on or before "+s.End.Format(time.DateOnly))
	}
	if s.PreferRecent {
		first, last := s.years(today)
		years := strconv.Itoa(first)
		if last != first {
			years += "-" + strconv.Itoa(last)
		}
		parts = append(parts, "prefer recent evidence: put a temporal filter (the year or years "+years+") in every query")
	}
	return strings.Join(parts, "; ")
}
