package collect

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/prometheus/procfs"
)

// fakeCgroupFS lays out files below a temporary directory; keys are
// slash-separated paths relative to it.
func fakeCgroupFS(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestLimitsFrom(t *testing.T) {
	const unlimited = "9223372036854771712"
	root := fakeCgroupFS(t, map[string]string{
		// Version 1: memory and cpu,cpuacct hierarchies.
		"v1mem/memory.limit_in_bytes":          unlimited,
		"v1mem/a/memory.limit_in_bytes":        "1073741824",
		"v1mem/a/b/memory.limit_in_bytes":      unlimited,
		"v1mem/free/memory.limit_in_bytes":     unlimited,
		"v1cpu/cpu.cfs_quota_us":               "-1",
		"v1cpu/cpu.cfs_period_us":              "100000",
		"v1cpu/a/cpu.cfs_quota_us":             "-1",
		"v1cpu/a/cpu.cfs_period_us":            "100000",
		"v1cpu/a/b/cpu.cfs_quota_us":           "150000",
		"v1cpu/a/b/cpu.cfs_period_us":          "100000",
		"v1cpu/free/cpu.cfs_quota_us":          "-1",
		"v1cpu/free/cpu.cfs_period_us":         "100000",
		"unified/cgroup.controllers":           "",
		"v2/cgroup.controllers":                "cpu memory",
		"v2/sys/memory.max":                    "max",
		"v2/sys/cpu.max":                       "max 100000",
		"v2/sys/svc/memory.max":                "536870912",
		"v2/sys/svc/cpu.max":                   "250000 100000",
		"v2/tight/memory.max":                  "268435456",
		"v2/tight/cpu.max":                     "50000 100000",
		"v2/tight/child/memory.max":            "max",
		"v2/tight/child/cpu.max":               "200000 100000",
		"container/memory.max":                 "104857600",
		"container/cpu.max":                    "100000 100000",
		"garbage/memory.max":                   "lots",
		"garbage/cpu.max":                      "1 2 3",
		"v2/sys/svc/cgroup.subtree_control":    "",
		"v1mem/a/b/memory.soft_limit_in_bytes": "1",
	})
	p := func(name string) string { return filepath.Join(root, name) }
	v1Mounts := []*procfs.MountInfo{
		{Root: "/", MountPoint: p("v1mem"), FSType: "cgroup", SuperOptions: map[string]string{"rw": "", "memory": ""}},
		{Root: "/", MountPoint: p("v1cpu"), FSType: "cgroup", SuperOptions: map[string]string{"rw": "", "cpu": "", "cpuacct": ""}},
		{Root: "/", MountPoint: p("unified"), FSType: "cgroup2", SuperOptions: map[string]string{"rw": ""}},
	}
	v1Groups := func(path string) []procfs.Cgroup {
		return []procfs.Cgroup{
			{HierarchyID: 4, Controllers: []string{"memory"}, Path: path},
			{HierarchyID: 2, Controllers: []string{"cpu", "cpuacct"}, Path: path},
			{HierarchyID: 0, Path: "/"},
		}
	}
	v2Mount := func(mountRoot, dir string) []*procfs.MountInfo {
		return []*procfs.MountInfo{{Root: mountRoot, MountPoint: p(dir), FSType: "cgroup2", SuperOptions: map[string]string{"rw": ""}}}
	}
	v2Group := func(path string) []procfs.Cgroup { return []procfs.Cgroup{{HierarchyID: 0, Path: path}} }

	tests := []struct {
		name    string
		cgroups []procfs.Cgroup
		mounts  []*procfs.MountInfo
		mem     int64
		cpus    float64
	}{
		{"v1 limit on parent", v1Groups("/a/b"), v1Mounts, 1 << 30, 1.5},
		{"v1 unlimited", v1Groups("/free"), v1Mounts, 0, 0},
		{"v1 root", v1Groups("/"), v1Mounts, 0, 0},
		{"v1 missing cgroup falls back to mount", v1Groups("/gone"), v1Mounts, 0, 0},
		{"v1 escape attempt", v1Groups("/a/../../v1mem/a"), v1Mounts, 0, 0},
		{"v2", v2Group("/sys/svc"), v2Mount("/", "v2"), 512 << 20, 2.5},
		{"v2 parent tighter", v2Group("/tight/child"), v2Mount("/", "v2"), 256 << 20, 0.5},
		{"v2 no limits", v2Group("/sys"), v2Mount("/", "v2"), 0, 0},
		{"v2 root", v2Group("/"), v2Mount("/", "v2"), 0, 0},
		{"v2 container view", v2Group("/kubepods/pod1"), v2Mount("/kubepods/pod1", "container"), 100 << 20, 1},
		{"v2 namespaced path", v2Group("/"), v2Mount("/", "container"), 100 << 20, 1},
		{"v2 path outside mount root", v2Group("/../../other"), v2Mount("/kubepods/pod1", "container"), 100 << 20, 1},
		{"v2 prefix is not parent", v2Group("/kubepods/pod10"), v2Mount("/kubepods/pod1", "container"), 100 << 20, 1},
		{"v2 unreadable values", v2Group("/"), v2Mount("/", "garbage"), 0, 0},
		{"no cgroup mounts", v2Group("/sys/svc"), nil, 0, 0},
		{"no cgroups", nil, v1Mounts, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem, cpus := limitsFrom(tt.cgroups, tt.mounts)
			if mem != tt.mem || cpus != tt.cpus {
				t.Errorf("limitsFrom = %d bytes, %g CPUs; want %d bytes, %g CPUs", mem, cpus, tt.mem, tt.cpus)
			}
		})
	}
}

func TestCgroupLimitsSelf(t *testing.T) {
	mem, cpus := cgroupLimits(os.Getpid())
	if mem < 0 || cpus < 0 {
		t.Errorf("cgroupLimits(self) = %d bytes, %g CPUs", mem, cpus)
	}
	if mem, cpus := cgroupLimits(-1); mem != 0 || cpus != 0 {
		t.Errorf("cgroupLimits(-1) = %d bytes, %g CPUs, want zeros", mem, cpus)
	}
}
