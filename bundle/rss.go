package bundle

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// RSSSample is one measurement of the program's resident set size.
type RSSSample struct {
	// Elapsed is the time since the program started.
	Elapsed time.Duration
	// RSS is the resident set size in bytes.
	RSS int64
	// CPU is the CPU time the program had used since it started, user
	// and system, when HasCPU: how busy it was between two samples, which
	// tells a program at rest from one that works without allocating.
	CPU    time.Duration
	HasCPU bool
}

// rssHeader is the first line of rss.csv. Milliseconds and bytes are used
// because spreadsheets and plotting tools take them without conversion;
// the cpu_ms column is written when every sample has its CPU time.
const (
	rssHeader    = "elapsed_ms,rss_bytes"
	rssCPUHeader = rssHeader + ",cpu_ms"
)

// encodeRSS writes samples in the rss.csv format.
func encodeRSS(w io.Writer, samples []RSSSample) error {
	bw := bufio.NewWriter(w)
	cpu := len(samples) > 0
	for _, s := range samples {
		cpu = cpu && s.HasCPU
	}
	if cpu {
		bw.WriteString(rssCPUHeader + "\n")
	} else {
		bw.WriteString(rssHeader + "\n")
	}
	var buf []byte
	for _, s := range samples {
		buf = buf[:0]
		// The shortest float that parses back to the same value keeps the
		// file compact and lets a round trip return exactly what was written.
		buf = appendMS(buf, s.Elapsed)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, s.RSS, 10)
		if cpu {
			buf = append(buf, ',')
			buf = appendMS(buf, s.CPU)
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}

func appendMS(buf []byte, d time.Duration) []byte {
	return strconv.AppendFloat(buf, float64(d)/float64(time.Millisecond), 'f', -1, 64)
}

// parseMS parses a non-negative count of milliseconds that fits a
// time.Duration.
func parseMS(s string) (time.Duration, bool) {
	ms, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(ms) || math.IsInf(ms, 0) || ms < 0 || ms > float64(math.MaxInt64/int64(time.Millisecond)) {
		return 0, false
	}
	return time.Duration(math.Round(ms * float64(time.Millisecond))), true
}

// maxRSSSamples bounds the samples decodeRSS returns: ten a second for
// five days, 64 MB.
const maxRSSSamples = 4 << 20

// decodeRSS parses the rss.csv format. Columns are found by their header
// name so that files with extra columns, from a newer writer or a
// spreadsheet, remain readable.
func decodeRSS(r io.Reader) ([]RSSSample, error) {
	sc := bufio.NewScanner(r)
	lineNo := 0
	elapsedCol, rssCol, cpuCol := -1, -1, -1
	var samples []RSSSample
	for sc.Scan() {
		lineNo++
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		fields := strings.Split(line, ",")
		if elapsedCol < 0 {
			for i, f := range fields {
				switch strings.TrimSpace(f) {
				case "elapsed_ms":
					elapsedCol = i
				case "rss_bytes":
					rssCol = i
				case "cpu_ms":
					cpuCol = i
				}
			}
			if elapsedCol < 0 || rssCol < 0 {
				return nil, fmt.Errorf("%s:%d: header %q lacks elapsed_ms and rss_bytes columns", RSSFile, lineNo, line)
			}
			continue
		}
		if len(fields) <= max(elapsedCol, rssCol, cpuCol) {
			return nil, fmt.Errorf("%s:%d: want at least %d fields, have %d", RSSFile, lineNo, max(elapsedCol, rssCol, cpuCol)+1, len(fields))
		}
		elapsed, ok := parseMS(fields[elapsedCol])
		if !ok {
			return nil, fmt.Errorf("%s:%d: invalid elapsed_ms %q", RSSFile, lineNo, fields[elapsedCol])
		}
		rss, err := strconv.ParseInt(strings.TrimSpace(fields[rssCol]), 10, 64)
		if err != nil || rss < 0 {
			return nil, fmt.Errorf("%s:%d: invalid rss_bytes %q", RSSFile, lineNo, fields[rssCol])
		}
		if len(samples) >= maxRSSSamples {
			return nil, fmt.Errorf("%s:%d: more than %d samples", RSSFile, lineNo, maxRSSSamples)
		}
		sm := RSSSample{Elapsed: elapsed, RSS: rss}
		if cpuCol >= 0 {
			if sm.CPU, sm.HasCPU = parseMS(fields[cpuCol]); !sm.HasCPU {
				return nil, fmt.Errorf("%s:%d: invalid cpu_ms %q", RSSFile, lineNo, fields[cpuCol])
			}
		}
		samples = append(samples, sm)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", RSSFile, lineNo+1, err)
	}
	if elapsedCol < 0 {
		return nil, fmt.Errorf("%s: empty file, want header %q", RSSFile, rssHeader)
	}
	return samples, nil
}
