package live

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// TimesFile is the name of the file that says when each stored sample was
// taken (see EncodeTimes).
const TimesFile = "live.csv"

// EncodeTimes writes when the samples of a window were taken, as CSV:
// "stage,unix_nano" and a row for the start, one for each sample taken
// during the window (in the order their MemStats are stored), and one for
// the end.
func EncodeTimes(start, end time.Time, during []time.Time) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"stage", "unix_nano"})
	row := func(stage string, t time.Time) { w.Write([]string{stage, strconv.FormatInt(t.UnixNano(), 10)}) }
	row(Start, start)
	for _, t := range during {
		row(During, t)
	}
	row(End, end)
	w.Flush()
	return b.Bytes()
}

// AppendDuring appends what a source served during the window to what is
// stored of it: the samples of one source follow each other in one file.
func AppendDuring(stored, data []byte) []byte {
	if len(stored) > 0 && !bytes.HasSuffix(stored, []byte("\n")) {
		stored = append(stored, '\n')
	}
	return append(stored, data...)
}

// splitDuring splits what AppendDuring stored into samples.
func splitDuring(src Source, data []byte) ([][]byte, error) {
	var out [][]byte
	switch src {
	case MemStats:
		for len(data) > 0 && len(out) < maxDuring {
			next := bytes.Index(data[1:], []byte("\n"+memStatsHeader))
			if next < 0 {
				out = append(out, data)
				break
			}
			out = append(out, data[:next+2])
			data = data[next+2:]
		}
	case Expvar:
		d := json.NewDecoder(bytes.NewReader(data))
		for len(out) < maxDuring {
			var raw json.RawMessage
			if err := d.Decode(&raw); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return nil, err
			}
			out = append(out, raw)
		}
	}
	return out, nil
}

// Load rebuilds the snapshots of a stored window. file returns the bytes
// of a stored file, nil when there is none. A source whose stored sample
// does not parse is left out, with the reason in notes; the error says why
// there is no window at all.
func Load(file func(name string) ([]byte, error)) (start, end *Snapshot, during []*Snapshot, notes []string, err error) {
	timesData, err := file(TimesFile)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if timesData == nil {
		return nil, nil, nil, nil, fmt.Errorf("no %s: the samples' times are unknown", TimesFile)
	}
	t0, t1, tDuring, err := decodeTimes(timesData)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	start, end = NewSnapshot(t0), NewSnapshot(t1)
	for _, src := range Sources {
		for _, st := range []struct {
			snap  *Snapshot
			stage string
		}{{start, Start}, {end, End}} {
			name := src.File(st.stage)
			data, err := file(name)
			if err == nil && data != nil {
				err = st.snap.Add(src, data, name)
			}
			if err != nil {
				notes = append(notes, fmt.Sprintf("%s left out: %v", name, err))
			}
		}
	}
	during, dnotes := loadDuring(file, tDuring)
	return start, end, during, append(notes, dnotes...), nil
}

// loadDuring reads the samples taken during the window, for their pauses.
func loadDuring(file func(string) ([]byte, error), times []time.Time) ([]*Snapshot, []string) {
	var out []*Snapshot
	var notes []string
	for _, src := range Sources {
		if !src.HasPauses() {
			continue
		}
		name := src.File(During)
		data, err := file(name)
		if err != nil || data == nil {
			if err != nil {
				notes = append(notes, fmt.Sprintf("%s left out: %v", name, err))
			}
			continue
		}
		parts, err := splitDuring(src, data)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s left out: %v", name, err))
			continue
		}
		for i, p := range parts {
			s := NewSnapshot(time.Time{})
			if i < len(times) {
				s.Time = times[i]
			}
			if err := s.Add(src, p, fmt.Sprintf("%s (sample %d)", name, i+1)); err != nil {
				notes = append(notes, fmt.Sprintf("%v: left out", err))
				continue
			}
			out = append(out, s)
		}
	}
	return out, notes
}

// decodeTimes reads what EncodeTimes wrote.
func decodeTimes(data []byte) (start, end time.Time, during []time.Time, err error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = 2
	rows, err := r.ReadAll()
	if err != nil {
		return start, end, nil, fmt.Errorf("%s: %v", TimesFile, err)
	}
	var haveStart, haveEnd bool
	for i, row := range rows {
		if i == 0 && row[0] == "stage" {
			continue
		}
		ns, err := strconv.ParseInt(row[1], 10, 64)
		if err != nil {
			return start, end, nil, fmt.Errorf("%s:%d: %q is not a time in Unix nanoseconds", TimesFile, i+1, row[1])
		}
		t := time.Unix(0, ns)
		switch row[0] {
		case Start:
			start, haveStart = t, true
		case End:
			end, haveEnd = t, true
		case During:
			if len(during) < maxDuring {
				during = append(during, t)
			}
		default:
			return start, end, nil, fmt.Errorf("%s:%d: unknown stage %q", TimesFile, i+1, row[0])
		}
	}
	if !haveStart || !haveEnd {
		return start, end, nil, fmt.Errorf("%s: no start or no end", TimesFile)
	}
	return start, end, during, nil
}

// maxDuring bounds the samples read from during a window: at one every
// 250 ms, a window of ten minutes takes 2,400.
const maxDuring = 10000
