package collect

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

// init makes this binary the go command's -toolexec wrapper when Run named
// it so (see gotool_linux.go). It runs before main, so that every program
// that calls Run wraps the tools of the go commands it runs without a hook
// of its own, test binaries included.
func init() {
	if len(os.Args) > 3 && os.Args[1] == toolexecArg && strings.HasPrefix(os.Args[2], socketPrefix) {
		os.Exit(toolexec(os.Args[2], os.Args[3:]))
	}
}

// toolexec runs the tool command line args for the go command, with the
// tool's standard error on a pipe: the gctrace lines that come through it
// go to the run listening on the socket sock, everything else to this
// process's standard error, which the go command reads and caches. The
// tool gets this process's standard input and output as they are. toolexec
// returns the status to exit with: the tool's.
func toolexec(sock string, args []string) int {
	// The wrapper runs without gctrace=1 (see writeToolexec); a
	// collection of its own is still of no use. It allocates little, so
	// it does without.
	debug.SetGCPercent(-1)
	// Pdeathsig comes when the thread that started the tool ends; this
	// one stays until the wrapper exits.
	runtime.LockOSThread()
	r, w, err := os.Pipe()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", args[0], err)
		return 1
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = withGCTrace(os.Environ())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, w
	// A tool left running by a killed wrapper would write to a pipe with
	// no reader.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	sigs := make(chan os.Signal, len(forwardedSignals))
	signal.Notify(sigs, forwardedSignals...)
	err = cmd.Start()
	w.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// The go command signals its tools, not their process group: pass
	// the signals on, as if the tool had got them.
	go func() {
		for sig := range sigs {
			cmd.Process.Signal(sig)
		}
	}()
	out := &toolSender{sock: sock, header: toolHeader(os.Getenv("TOOLEXEC_IMPORTPATH"), args)}
	splitTrace(r, os.Stderr, out)
	out.close()
	cmd.Wait()
	return exitStatus(cmd.ProcessState)
}

// maxHeader bounds the bytes of a tool's header.
const maxHeader = 256

// toolHeader returns the "# pkg" header the go command prints above the
// output of a tool run for the package desc describes. A tool run for no
// package, such as the "compile -V=full" the go command runs to learn the
// compiler's version, is named by its command line.
func toolHeader(desc string, args []string) string {
	desc = strings.TrimSpace(desc)
	if desc == "" {
		desc = strings.Join(append([]string{filepath.Base(args[0])}, args[1:]...), " ")
	}
	if len(desc) > maxHeader {
		desc = strings.ToValidUTF8(desc[:maxHeader], "") + "…"
	}
	desc = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, desc)
	return "# " + desc + "\n"
}

// splitTrace copies r to pass, except the gctrace lines, which go to out.
// Writes to pass that fail are dropped, so that the tool is never blocked.
func splitTrace(r io.Reader, pass io.Writer, out *toolSender) {
	br := bufio.NewReaderSize(r, maxPending)
	long := false // inside a line too long to be gctrace output
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			if !long && err != bufio.ErrBufferFull && gctrace.IsTrace(gctrace.ClassifyLine(trimEOL(line), nil)) {
				out.send(line)
			} else {
				pass.Write(line)
			}
			long = err == bufio.ErrBufferFull
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}

// toolSendTimeout bounds one write of gctrace lines to the run. The run
// reads as they come; a run that stopped reading costs the tool its lines,
// never its progress.
const toolSendTimeout = time.Minute

// toolSender sends a tool's gctrace lines to the run, after a header that
// names the tool's package as the go command names it above the tool's
// output. The connection is made at the first line: most tools print none.
type toolSender struct {
	sock   string
	header string
	conn   net.Conn
	failed bool
}

// send sends one line, or drops it when the run cannot be reached.
func (s *toolSender) send(line []byte) {
	if s.failed {
		return
	}
	if s.conn == nil {
		c, err := net.Dial("unix", "@"+s.sock)
		if err != nil {
			s.failed = true
			return
		}
		s.conn = c
		if s.header != "" {
			line = append([]byte(s.header), line...)
		}
	}
	s.conn.SetWriteDeadline(time.Now().Add(toolSendTimeout))
	if _, err := s.conn.Write(withEOL(line)); err != nil {
		s.failed = true
	}
}

func (s *toolSender) close() {
	if s.conn != nil {
		s.conn.Close()
	}
}

// exitStatus returns the status to exit with after a tool ended as ps
// says. The go command names the signal that killed a tool, so a tool
// killed by SIGINT, SIGTERM, SIGHUP or SIGKILL kills the wrapper the same
// way; for other signals, whose Go default is a stack dump the go command
// would show, the wrapper exits with 128 plus the signal number.
func exitStatus(ps *os.ProcessState) int {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ps.ExitCode()
	}
	sig := ws.Signal()
	switch sig {
	case syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGKILL:
		signal.Reset(sig)
		// A signal sent to the current thread is handled before the
		// call returns.
		unix.Tgkill(unix.Getpid(), unix.Gettid(), sig)
	}
	return 128 + int(sig)
}
