// Package release says which build of gcdoctor is running, for its
// version command, its reports and the bundles it writes.
package release

import "runtime/debug"

// Version reports the module version gcdoctor was built from, with the
// VCS revision when the build recorded one, and the Go version that built
// it: "v1.2.0 go1.26.8", or "(devel) 1a2b3c4d5e6f+dirty go1.26.8".
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
			if len(rev) > 12 {
				rev = rev[:12]
			}
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" && v == "(devel)" {
		v += " " + rev + dirty
	}
	return v + " " + bi.GoVersion
}
