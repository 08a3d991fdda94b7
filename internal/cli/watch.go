package cli

import (
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/report"
	"github.com/gcdoctor/gcdoctor/watch"
)

func newWatchCmd(e *env) *cobra.Command {
	var c watch.Config
	var color string
	cmd := &cobra.Command{
		Use:     "watch URL | watch [flags] -- CMD [ARGS...]",
		Short:   "Follow a running program's GC live, in the terminal or as JSON lines",
		Long:    longHelp("watch"),
		Example: examples("watch"),
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := c.Check(); err != nil {
				return &usageError{err}
			}
			rf := reportFlags{Output: report.Output{Color: color, Width: 80}, formats: []string{"text"}}
			if err := rf.validate(); err != nil {
				return err
			}
			dash := cmd.ArgsLenAtDash()
			if (dash < 0 && len(args) != 1) || dash > 0 {
				return &usageError{errors.New("give one URL, or a program after --, as in: gcdoctor watch -- ./server")}
			}
			c.In, c.Out, c.Err, c.Tool, c.ToolVersion = e.stdin, cmd.OutOrStdout(), e.stderr, e.tool(), version()
			c.Terminal = !c.JSONLines && isTerminal(c.Out) && isTerminal(c.In)
			c.Style = watch.NewStyle(e.useColor(color, c.Out))
			if dash != 0 {
				src, err := watch.NewURL(args[0], c.Interval)
				if err != nil {
					return &usageError{err}
				}
				return watch.Watch(cmd.Context(), src, c)
			}
			src, err := watch.NewProgram(cmd.Context(), args, c.Record != "")
			if err != nil {
				return err
			}
			return watch.Watch(cmd.Context(), src, c)
		},
	}
	cmd.Flags().DurationVar(&c.Interval, "interval", time.Second, "how often to read the program's figures")
	cmd.Flags().DurationVar(&c.For, "for", 0, "stop after this long (default: until q, Ctrl-C or the program's end)")
	cmd.Flags().StringVar(&c.Record, "record", "", "write what was watched to `DIR`, a bundle gcdoctor doctor reads")
	cmd.Flags().BoolVar(&c.JSONLines, "json-lines", false, "print one JSON object per interval (schema: "+report.DocsURL+"live.md#json-lines)")
	cmd.Flags().StringVar(&color, "color", "auto", "colour the screen: auto, always or never (NO_COLOR is honoured)")
	return cmd
}
