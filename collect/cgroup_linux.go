package collect

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
)

// cgroupLimits returns the memory limit in bytes and the CPU limit in CPUs
// of the cgroup of process pid, 0 when there is none or it cannot be read.
// These limits, not the machine's size, are what a program in a container
// runs into, and the Go runtime sees only part of them.
func cgroupLimits(pid int) (memBytes int64, cpus float64) {
	proc, err := procfs.NewProc(pid)
	if err != nil {
		return 0, 0
	}
	cgroups, err := proc.Cgroups()
	if err != nil {
		return 0, 0
	}
	mounts, err := procfs.GetProcMounts(pid)
	if err != nil {
		return 0, 0
	}
	return limitsFrom(cgroups, mounts)
}

// limitsFrom finds the limits given the process's cgroups and its view of
// the mounts. On hybrid systems a controller lives in either a version 1
// hierarchy or the unified one, never both, so a version 1 hierarchy for
// the controller is looked for first.
func limitsFrom(cgroups []procfs.Cgroup, mounts []*procfs.MountInfo) (memBytes int64, cpus float64) {
	if dir, top, ok := v1Dir(cgroups, mounts, "memory"); ok {
		memBytes = int64(minLimit(dir, top, readMemV1))
	} else if dir, top, ok := v2Dir(cgroups, mounts); ok {
		memBytes = int64(minLimit(dir, top, readMemV2))
	}
	if dir, top, ok := v1Dir(cgroups, mounts, "cpu"); ok {
		cpus = minLimit(dir, top, readCPUV1)
	} else if dir, top, ok := v2Dir(cgroups, mounts); ok {
		cpus = minLimit(dir, top, readCPUV2)
	}
	return memBytes, cpus
}

// v1Dir returns the directory of the process's cgroup in the version 1
// hierarchy holding controller, and that hierarchy's mount point.
func v1Dir(cgroups []procfs.Cgroup, mounts []*procfs.MountInfo, controller string) (dir, top string, ok bool) {
	for _, cg := range cgroups {
		if cg.HierarchyID == 0 || !slices.Contains(cg.Controllers, controller) {
			continue
		}
		for _, m := range mounts {
			if _, has := m.SuperOptions[controller]; has && m.FSType == "cgroup" {
				return cgroupDir(m, cg.Path), m.MountPoint, true
			}
		}
	}
	return "", "", false
}

// v2Dir returns the directory of the process's cgroup in the unified
// hierarchy, and that hierarchy's mount point.
func v2Dir(cgroups []procfs.Cgroup, mounts []*procfs.MountInfo) (dir, top string, ok bool) {
	for _, cg := range cgroups {
		if cg.HierarchyID != 0 {
			continue
		}
		for _, m := range mounts {
			if m.FSType == "cgroup2" {
				return cgroupDir(m, cg.Path), m.MountPoint, true
			}
		}
	}
	return "", "", false
}

// cgroupDir locates cgroup path within mount m. The mount may show only a
// subtree of the hierarchy (its Root), as in a container; a path outside
// that subtree, or one that does not exist, falls back to the mount point,
// which is then the closest cgroup that can be seen.
func cgroupDir(m *procfs.MountInfo, path string) string {
	rel := path
	if m.Root != "/" {
		r, ok := strings.CutPrefix(path, m.Root)
		if !ok || (r != "" && r[0] != '/') {
			r = ""
		}
		rel = r
	}
	if slices.Contains(strings.Split(rel, "/"), "..") {
		rel = ""
	}
	dir := filepath.Join(m.MountPoint, rel)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return m.MountPoint
	}
	return dir
}

// minLimit returns the smallest limit read from dir and its ancestors up to
// top, 0 when none sets one: a limit on any ancestor cgroup applies to the
// whole subtree below it.
func minLimit(dir, top string, read func(dir string) (float64, bool)) float64 {
	var limit float64
	for {
		if v, ok := read(dir); ok && (limit == 0 || v < limit) {
			limit = v
		}
		parent := filepath.Dir(dir)
		if dir == top || parent == dir || len(parent) < len(top) {
			return limit
		}
		dir = parent
	}
}

// unlimitedV1 is the smallest value treated as "no limit" in a version 1
// memory.limit_in_bytes, which reports the absence of a limit as a huge
// number rounded down to a page multiple.
const unlimitedV1 = 1 << 62

func readMemV1(dir string) (float64, bool) {
	v, err := readInt(filepath.Join(dir, "memory.limit_in_bytes"))
	if err != nil || v <= 0 || v >= unlimitedV1 {
		return 0, false
	}
	return float64(v), true
}

func readMemV2(dir string) (float64, bool) {
	v, err := readInt(filepath.Join(dir, "memory.max"))
	if err != nil || v <= 0 {
		return 0, false
	}
	return float64(v), true
}

func readCPUV1(dir string) (float64, bool) {
	quota, err := readInt(filepath.Join(dir, "cpu.cfs_quota_us"))
	if err != nil || quota <= 0 {
		return 0, false
	}
	period, err := readInt(filepath.Join(dir, "cpu.cfs_period_us"))
	if err != nil || period <= 0 {
		return 0, false
	}
	return float64(quota) / float64(period), true
}

// readCPUV2 reads cpu.max, which holds "$MAX $PERIOD" with "max" for no
// limit.
func readCPUV2(dir string) (float64, bool) {
	data, err := os.ReadFile(filepath.Join(dir, "cpu.max"))
	if err != nil {
		return 0, false
	}
	fields := strings.Fields(string(data))
	if len(fields) != 2 {
		return 0, false
	}
	quota, err1 := strconv.ParseInt(fields[0], 10, 64)
	period, err2 := strconv.ParseInt(fields[1], 10, 64)
	if err1 != nil || err2 != nil || quota <= 0 || period <= 0 {
		return 0, false
	}
	return float64(quota) / float64(period), true
}

// readInt reads a file holding one integer; "max" is reported as an error,
// since callers treat both as no limit.
func readInt(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
}
