package pacer

import (
	"errors"
	"fmt"
)

// MaxSettings bounds how many settings ParseSettings combines: each is a
// prediction or a set of runs, and a list of thousands is a typo.
const MaxSettings = 1000

// ParseSettings combines every GOGC value with every memory limit, in
// order: GOGC as ParseGOGC reads it, limits as ParseMemoryLimit does, and
// no limit when limits is empty.
func ParseSettings(gogcs, limits []string) ([]Setting, error) {
	if n := max(len(gogcs), 1) * max(len(limits), 1); n > MaxSettings {
		return nil, fmt.Errorf("%d GOGC × GOMEMLIMIT settings: at most %d", n, MaxSettings)
	}
	limitValues := []int64{0}
	if len(limits) > 0 {
		limitValues = nil
		for _, l := range limits {
			v, err := ParseMemoryLimit(l)
			if err != nil {
				return nil, &SettingError{"GOMEMLIMIT", l, err}
			}
			limitValues = append(limitValues, v)
		}
	}
	var settings []Setting
	for _, g := range gogcs {
		v, err := ParseGOGC(g)
		if err != nil {
			return nil, &SettingError{"GOGC", g, err}
		}
		for _, l := range limitValues {
			settings = append(settings, Setting{GOGC: v, MemoryLimit: l})
		}
	}
	if len(settings) == 0 {
		return nil, errors.New("no GOGC value given")
	}
	return settings, nil
}

// ParseSettingFlags is ParseSettings for settings given on a command
// line: it wants at least one GOGC value, and its errors name the flag
// (gogcFlag or limitFlag) that the wrong value came from.
func ParseSettingFlags(gogcs, limits []string, gogcFlag, limitFlag string) ([]Setting, error) {
	if len(gogcs) == 0 {
		return nil, fmt.Errorf("%s: give at least one value", gogcFlag)
	}
	s, err := ParseSettings(gogcs, limits)
	var se *SettingError
	switch {
	case errors.As(err, &se) && se.Name == "GOGC":
		return nil, fmt.Errorf("%s %s: %v", gogcFlag, se.Value, se.Err)
	case errors.As(err, &se):
		return nil, fmt.Errorf("%s %s: %v", limitFlag, se.Value, se.Err)
	}
	return s, err
}

// SettingError is a GOGC or GOMEMLIMIT value ParseSettings could not read.
type SettingError struct {
	Name  string // "GOGC" or "GOMEMLIMIT"
	Value string
	Err   error
}

func (e *SettingError) Error() string { return e.Name + " " + e.Value + ": " + e.Err.Error() }

func (e *SettingError) Unwrap() error { return e.Err }
