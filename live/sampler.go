package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Bounds on each read of a source, so that a service that stalls or
// answers without end can neither hang a Sampler nor fill its memory.
const (
	// ReadTimeout bounds each read, from the request to the last byte.
	ReadTimeout = 10 * time.Second
	// MaxReadBytes bounds each answer: a heap profile in text of a large
	// program takes a few MiB before its MemStats.
	MaxReadBytes = 64 << 20
)

// Getter reads the answer to a GET of u, bounded in time and size; an
// answer other than 200 OK is an error.
type Getter func(ctx context.Context, u *url.URL) ([]byte, error)

// Sampler reads snapshots of one service.
type Sampler struct {
	// Base is the service's base URL: sources are read at their Path
	// under it.
	Base *url.URL
	// Get reads one source; nil means a plain HTTP client within
	// ReadTimeout and MaxReadBytes.
	Get Getter
	// found are the sources that answered the first sample; later
	// samples read only them.
	found []Source
	tried bool
}

// NewSampler returns a sampler of the service at raw: a base URL
// ("http://localhost:6060", "localhost:6060") or its /debug/pprof/ page,
// which stands for the service it is part of.
func NewSampler(raw string) (*Sampler, error) {
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%q is not a URL such as http://localhost:6060", raw)
	}
	return &Sampler{Base: BaseOf(u)}, nil
}

// BaseOf returns the base URL of the service u is part of: u without its
// query, and without a trailing /debug/pprof/ or /debug/gcdoctor/ path.
func BaseOf(u *url.URL) *url.URL {
	b := *u
	p := strings.TrimSuffix(b.Path, "/")
	for _, suffix := range []string{"/debug/pprof", "/debug/gcdoctor"} {
		p = strings.TrimSuffix(p, suffix)
	}
	b.Path, b.RawPath, b.RawQuery, b.Fragment = p+"/", "", "", ""
	return &b
}

// URL is where the source is read.
func (s *Sampler) URL(src Source) *url.URL {
	path, query, _ := strings.Cut(src.Path(), "?")
	u := s.Base.JoinPath(path)
	u.RawQuery = query
	return u
}

// Found lists the sources that answered the first sample, nil before it.
func (s *Sampler) Found() []Source { return s.found }

// Sample reads a snapshot from every source the service serves, or only
// from those in only. The first sample tries every source; later ones read
// only those that answered it. The error lists what failed when no source
// answered; otherwise failures leave a source out of this snapshot and
// are returned in failed.
func (s *Sampler) Sample(ctx context.Context, only ...Source) (snap *Snapshot, failed map[Source]error, err error) {
	srcs := Sources
	if s.tried {
		srcs = s.found
	}
	began := time.Now()
	snap = NewSnapshot(began)
	failed = map[Source]error{}
	for _, src := range srcs {
		if len(only) > 0 && !contains(only, src) {
			continue
		}
		u := s.URL(src)
		data, err := s.get(ctx, u)
		if err == nil {
			err = snap.Add(src, data, u.Redacted())
		}
		if err != nil {
			failed[src] = err
			if ctx.Err() != nil {
				return nil, failed, ctx.Err()
			}
		}
	}
	if !s.tried {
		s.tried = true
		s.found = snap.Sources()
	}
	if len(snap.Raw) == 0 {
		return nil, failed, noSource(s.Base, srcs, failed)
	}
	// The sources were read one after the other: the middle of the
	// reads stands for all of them.
	snap.Time = began.Add(time.Since(began) / 2)
	return snap, failed, nil
}

// noSource is the error of a sample no source answered, on one line: each
// distinct reason once, with the sources it stopped.
func noSource(base *url.URL, srcs []Source, failed map[Source]error) error {
	var reasons []string
	by := map[string][]string{}
	var first error
	for _, src := range srcs {
		e := failed[src]
		if e == nil {
			continue
		}
		if first == nil {
			first = e
		}
		msg := e.Error()
		// A GET's error names its URL; the base URL is said once.
		if _, rest, ok := strings.Cut(msg, base.Redacted()); ok && strings.HasPrefix(msg, "GET ") {
			if _, after, ok := strings.Cut(rest, ": "); ok {
				msg = after
			}
		}
		msg = strings.ReplaceAll(msg, "\n", "; ")
		if by[msg] == nil {
			reasons = append(reasons, msg)
		}
		by[msg] = append(by[msg], "/"+src.Path())
	}
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = strings.Join(by[r], ", ") + ": " + r
	}
	return &noSourceError{msg: fmt.Sprintf("%s: no source of GC figures answered (%s)", base.Redacted(), strings.Join(parts, "; ")), first: first}
}

// noSourceError keeps the first failure for errors.Is and errors.As.
type noSourceError struct {
	msg   string
	first error
}

func (e *noSourceError) Error() string { return e.msg }
func (e *noSourceError) Unwrap() error { return e.first }

func contains(srcs []Source, src Source) bool {
	for _, s := range srcs {
		if s == src {
			return true
		}
	}
	return false
}

func (s *Sampler) get(ctx context.Context, u *url.URL) ([]byte, error) {
	if s.Get != nil {
		return s.Get(ctx, u)
	}
	return plainGet(ctx, u)
}

// plainGet is the default Getter.
func plainGet(ctx context.Context, u *url.URL) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, ReadTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4, application/json;q=0.9, */*;q=0.1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u.Redacted(), errors.Unwrap(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", u.Redacted(), strings.Trim(strconv.Quote(resp.Status), `"`))
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxReadBytes+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %v", u.Redacted(), err)
	}
	if len(data) > MaxReadBytes {
		return nil, fmt.Errorf("GET %s: the answer is larger than %d MiB", u.Redacted(), MaxReadBytes>>20)
	}
	return data, nil
}
