package collect

import (
	"bytes"
	"context"
	"crypto/rand"
	"debug/buildinfo"
	"encoding/hex"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Running the go command under GODEBUG=gctrace=1 is what its users most
// often want measured (the compiler, the linker, a test binary), and the
// one program that must not simply inherit the setting. The go command
// keeps the output of every compile and link in its build cache, and
// prints it again whenever it reuses the result: gctrace lines a compile
// writes to its standard error would be replayed by every later build on
// the machine, long after the run, and read as processes by the next
// diagnosis. GODEBUG is not part of the cache key (see buildActionID in
// cmd/go/internal/work/exec.go), so no setting of it keeps the two apart,
// and a separate GOCACHE for the run would make every build under gcdoctor
// start cold.
//
// So Run passes the go command, in GOFLAGS, a -toolexec that runs every
// tool under this binary (see toolexec). The wrapper gives the tool a pipe
// for its standard error, sends the gctrace lines that come through it to
// Run over a Unix socket, and passes everything else on: the go command
// never sees a tool's gctrace line, caches only what it would have cached
// without gcdoctor, and the compiles are still measured, each labelled with
// its package as the go command labels their output. -toolexec is not part
// of the cache key either, and the wrapper passes the tool's version
// (-V=full) through unchanged, so the build reuses the cache it finds.
//
// The -toolexec is a one-word script (see writeToolexec) rather than the
// wrapper's command line: go commands before Go 1.21 split GOFLAGS at
// spaces, whatever the quotes. The script also takes gctrace=1 out of the
// wrapper's own GODEBUG: a collection in the wrapper before it can turn
// collections off, which a few allocations make under a low GOGC, would
// print a gctrace line to the go command, which would cache it.
//
// The go command itself, and the programs it runs (go run, test binaries),
// still get gctrace=1 from the environment: their output is not cached.
// go test's results are, so GOFLAGS also gets -count=1 (see goFlags).

// toolexecArg is the argument that makes this binary the go command's
// -toolexec wrapper (see toolexec); the name of the socket and the tool's
// command line follow it.
const toolexecArg = "-gcdoctor-toolexec"

// socketPrefix begins the name of the abstract Unix socket a run listens
// on for its tools' gctrace lines. The wrapper gets the name without the
// "@" that makes it abstract, which would look like a response file on a
// tool's command line.
const socketPrefix = "gcdoctor-"

// isGoCommand reports whether the build information belongs to the go
// command, or to one of the golang.org/dl commands (go1.20.14 and the
// like) that run a given version of it.
func isGoCommand(info *buildinfo.BuildInfo) bool {
	return info != nil && (info.Path == "cmd/go" || strings.HasPrefix(info.Path, "golang.org/dl/go"))
}

// goEnvTimeout bounds "go env GOFLAGS". It may download the toolchain a
// module asks for, as the go command it precedes would.
const goEnvTimeout = 2 * time.Minute

// userGOFLAGS returns the GOFLAGS the go command at path would use in dir
// with env: the variable, or else what "go env -w" saved. Setting the
// variable hides the saved value, so Run must start from it. When the go
// command cannot say, the variable is used: the command run next would
// then fail the same way, building nothing.
func userGOFLAGS(ctx context.Context, path, dir string, env []string) string {
	if v := lookupEnv(env, "GOFLAGS"); v != "" {
		return v
	}
	ctx, cancel := context.WithTimeout(ctx, goEnvTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "env", "GOFLAGS")
	cmd.Env, cmd.Dir = env, dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// maxToolConns bounds the tools whose lines are read at once. The go
// command runs at most one tool per CPU at a time; a tool beyond the
// bound loses its lines, nothing more.
const maxToolConns = 256

// maxToolBlock bounds the bytes of one tool's lines held before they are
// written to the log. A compile's gctrace output fits many times over, and
// keeping it whole keeps it in one block under its package's header.
const maxToolBlock = 256 << 10

// goTools runs the go command's tools under this binary: it holds the
// script the go command runs them with, receives their gctrace lines, and
// writes each tool's lines to the log as one block.
type goTools struct {
	dir      string // made for the script, removed by stop
	script   string
	ln       *net.UnixListener
	log      *traceLog
	uid      int
	accepted chan struct{} // closed when the accept loop ends
	readers  sync.WaitGroup
	mu       sync.Mutex
	conns    map[*net.UnixConn]bool
}

// startGoTools writes the wrapper's script and starts listening for the
// tools' lines, on an abstract socket that disappears with the process
// however it ends. env is the go command's environment, without gctrace=1.
func startGoTools(log *traceLog, env []string) (*goTools, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, errors.New("cannot find this program's own executable, which runs the go command's tools: " + err.Error())
	}
	var id [16]byte
	rand.Read(id[:])
	name := socketPrefix + hex.EncodeToString(id[:])
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: "@" + name, Net: "unix"})
	if err != nil {
		return nil, err
	}
	dir, err := scriptDir(env)
	if err != nil {
		ln.Close()
		return nil, err
	}
	t := &goTools{dir: dir, script: filepath.Join(dir, "toolexec"), ln: ln, log: log, uid: os.Geteuid(), accepted: make(chan struct{}), conns: map[*net.UnixConn]bool{}}
	godebug := strings.Join(otherGODEBUG(lookupEnv(env, "GODEBUG")), ",")
	if err := writeToolexec(t.script, self, name, godebug); err != nil {
		ln.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	go t.accept()
	return t, nil
}

// scriptDir makes a directory for the toolexec script where programs may
// run: in the first of GOTMPDIR (where the go command runs the programs it
// builds), the temporary directory and the user's cache directory that is
// not mounted noexec, as hardened systems mount /tmp.
func scriptDir(env []string) (string, error) {
	var bases []string
	if d := lookupEnv(env, "GOTMPDIR"); d != "" {
		bases = append(bases, d)
	}
	bases = append(bases, os.TempDir())
	if d, err := os.UserCacheDir(); err == nil {
		bases = append(bases, d)
	}
	err := errors.New("no temporary directory allows running programs: all are mounted noexec")
	for _, base := range bases {
		var st unix.Statfs_t
		if unix.Statfs(base, &st) == nil && st.Flags&unix.ST_NOEXEC != 0 {
			continue
		}
		dir, derr := os.MkdirTemp(base, "gcdoctor-toolexec-")
		if derr == nil {
			return dir, nil
		}
		err = derr
	}
	return "", err
}

// writeToolexec writes the script that the go command runs its tools
// with: it runs this program, self, as the wrapper of the tool (and of
// the user's own -toolexec command, if any) that follow in its arguments,
// sending the tool's gctrace lines to the socket sock, with GODEBUG set to
// godebug, the user's settings other than gctrace. The wrapper gives the
// tool gctrace=1 back.
func writeToolexec(path, self, sock, godebug string) error {
	script := "#!/bin/sh\n" +
		"# Written by gcdoctor for one run of the go command, and removed after it.\n" +
		"GODEBUG=" + shellQuote(godebug) + "\n" +
		"export GODEBUG\n" +
		"exec " + shellQuote(self) + " " + toolexecArg + " " + sock + ` "$@"` + "\n"
	return os.WriteFile(path, []byte(script), 0o700)
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (t *goTools) accept() {
	defer close(t.accepted)
	for {
		c, err := t.ln.AcceptUnix()
		if err != nil {
			return
		}
		t.serve(c)
	}
}

// serve reads the lines of one tool. Anyone on the machine can connect to
// an abstract socket; only processes of this user are listened to.
func (t *goTools) serve(c *net.UnixConn) {
	t.mu.Lock()
	ok := len(t.conns) < maxToolConns && peerUID(c) == t.uid
	if ok {
		t.conns[c] = true
	}
	t.mu.Unlock()
	if !ok {
		c.Close()
		return
	}
	t.readers.Add(1)
	go func() {
		defer t.readers.Done()
		t.read(c)
		t.mu.Lock()
		delete(t.conns, c)
		t.mu.Unlock()
		c.Close()
	}()
}

// read copies what one tool sends to the log, in blocks of whole lines.
func (t *goTools) read(c *net.UnixConn) {
	var block []byte
	buf := make([]byte, 32<<10)
	for {
		n, err := c.Read(buf)
		block = append(block, buf[:n]...)
		if len(block) >= maxToolBlock {
			cut := len(block)
			if i := bytes.LastIndexByte(block, '\n'); i >= 0 {
				cut = i + 1
			}
			t.log.write(withEOL(block[:cut]))
			block = append(block[:0], block[cut:]...)
		}
		if err != nil {
			break
		}
	}
	if len(block) > 0 {
		t.log.write(withEOL(block))
	}
}

// peerUID returns the effective user ID of the process at the other end
// of c, or -1 when it cannot be told.
func peerUID(c *net.UnixConn) int {
	rc, err := c.SyscallConn()
	if err != nil {
		return -1
	}
	uid := -1
	rc.Control(func(fd uintptr) {
		if cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED); err == nil {
			uid = int(cred.Uid)
		}
	})
	return uid
}

// stop ends listening once the program has exited. The tools the go
// command ran have exited too, but their connections may still wait to be
// accepted, and their lines to be read: stop takes them all, waiting at
// most grace for a tool the go command left running.
func (t *goTools) stop(grace time.Duration) {
	t.ln.SetDeadline(time.Now())
	<-t.accepted
	t.ln.SetDeadline(time.Time{})
	t.drain()
	t.ln.Close()
	t.mu.Lock()
	for c := range t.conns {
		c.SetReadDeadline(time.Now().Add(grace))
	}
	t.mu.Unlock()
	t.readers.Wait()
	os.RemoveAll(t.dir)
}

// drain accepts the connections already waiting, without waiting for more:
// a deadline would refuse them all once passed.
func (t *goTools) drain() {
	rc, err := t.ln.SyscallConn()
	if err != nil {
		return
	}
	for {
		var fd int
		var aerr error
		err := rc.Read(func(lfd uintptr) bool {
			for {
				fd, _, aerr = unix.Accept4(int(lfd), unix.SOCK_CLOEXEC)
				if !errors.Is(aerr, unix.EINTR) {
					return true
				}
			}
		})
		if err != nil || aerr != nil {
			return
		}
		f := os.NewFile(uintptr(fd), "tool")
		c, err := net.FileConn(f)
		f.Close()
		if uc, ok := c.(*net.UnixConn); err == nil && ok {
			t.serve(uc)
		} else if err == nil {
			c.Close()
		}
	}
}

// goCommandEnv returns env set up for running the go command at path (see
// the comment at the top of this file): GOFLAGS runs the tools under this
// binary, which sends their gctrace lines to tools.
func goCommandEnv(ctx context.Context, s *Spec, path string, env []string, tools *goTools) ([]string, error) {
	if setsToolexec(s.Args) {
		return nil, errors.New("the command line sets -toolexec, which would replace the wrapper that keeps gctrace lines out of the build cache; set it in GOFLAGS instead, and it runs under the wrapper")
	}
	flags, err := goFlags(userGOFLAGS(ctx, path, s.Dir, env), []string{tools.script})
	if err != nil {
		return nil, err
	}
	return append(env, "GOFLAGS="+flags), nil
}
