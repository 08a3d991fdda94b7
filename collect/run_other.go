//go:build !linux

package collect

import (
	"context"
	"fmt"
)

// Run runs the program described by s and gathers evidence about its
// garbage collector. It needs Linux, which provides the process and cgroup
// information collection relies on; on other systems it returns an error.
func Run(ctx context.Context, s Spec) (*Result, error) {
	return nil, fmt.Errorf("run %s: collecting evidence is only supported on Linux", s.Path)
}
