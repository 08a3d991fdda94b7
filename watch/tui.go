package watch

import (
	"context"
	"io"

	tea "github.com/charmbracelet/bubbletea"
)

// frameMsg brings a Frame to the terminal view; doneMsg says the session
// ended, with its error.
type (
	frameMsg *Frame
	doneMsg  struct{ err error }
)

// view is the terminal view of a session: the last Frame drawn in the
// terminal's size.
type view struct {
	frame         *Frame
	width, height int
	style         Style
	stop          context.CancelFunc
	err           error
}

func (v *view) Init() tea.Cmd { return nil }

func (v *view) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch m := msg.(type) {
	case tea.WindowSizeMsg:
		v.width, v.height = m.Width, m.Height
	case tea.KeyMsg:
		switch m.String() {
		case "q", "Q", "ctrl+c", "esc":
			v.stop()
			return v, tea.Quit
		}
	case frameMsg:
		v.frame = m
	case doneMsg:
		v.err = m.err
		return v, tea.Quit
	}
	return v, nil
}

func (v *view) View() string {
	if v.frame == nil {
		return "gcdoctor watch: taking the first sample…\n"
	}
	width := v.width
	if width == 0 {
		width = 80
	}
	return Screen(v.frame, width, v.height, v.style) + "\n"
}

// RunTerminal runs the session in a full-screen terminal view on in and
// out until q, Ctrl-C, the end of ctx or of the program. It returns the
// last Frame drawn and the session's error.
func RunTerminal(ctx context.Context, s *Session, in io.Reader, out io.Writer, style Style) (*Frame, error) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	v := &view{style: style, stop: stop}
	p := tea.NewProgram(v, tea.WithInput(in), tea.WithOutput(out), tea.WithAltScreen(), tea.WithContext(ctx))
	var last *Frame
	var runErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		runErr = s.Run(ctx, func(f *Frame) bool {
			last = f
			p.Send(frameMsg(f))
			return false
		})
		p.Send(doneMsg{runErr})
	}()
	_, err := p.Run()
	stopped := ctx.Err() != nil
	stop()
	<-done
	if err != nil && !stopped {
		return last, err
	}
	return last, runErr
}
