package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// command is one subcommand. run parses its own flags (pflag: flags anywhere on the line, "--"
// ends them), so the same function serves the command line, help and completion.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, m *Main, args []string) error
	// complete names what the command's arguments are, for shell completion.
	complete argKind
	// localOnly commands work on a local database itself (its keys, schema, files, or serving
	// it): with a server configured (--server, ANNALS_SERVER) they refuse rather than quietly
	// use the local database.
	localOnly bool
}

// argKind is what a command's positional arguments are.
type argKind int

const (
	argsNone         argKind = iota
	argsChatID               // the first argument is a chat id
	argsChatThenTags         // a chat id, then tags
)

func (m *Main) commands() []command {
	return []command{
		{"ingest", "read chats, entries, runs and truncations in the capture format (JSON Lines)", runIngest, argsNone, false},
		{"import", "import the histories agent tools keep (Claude Code, Codex, Gemini CLI, Aider, ...)", runImport, argsNone, false},
		{"list", "list chats, pinned first, then most recent activity", runList, argsNone, false},
		{"search", "find chats by title, description, summary, tags and transcript", runSearch, argsNone, false},
		{"show", "print one chat's transcript", runShow, argsChatID, false},
		{"browse", "search and read the history in the terminal (also 'annals' alone on a terminal)", runBrowse, argsNone, false},
		{"export", "export one chat as Markdown or JSON", runExport, argsChatID, false},
		{"rename", "set a chat's title", runRename, argsChatID, false},
		{"tag", "replace a chat's tags or set its description", runTag, argsChatThenTags, false},
		{"pin", "pin or unpin a chat", runPin, argsChatID, false},
		{"archive", "archive or restore a chat", runArchive, argsChatID, false},
		{"recap", "summarise a chat and store the summary", runRecap, argsChatID, false},
		{"resume", "print the source tool's command to continue a chat", runResume, argsChatID, false},
		{"usage", "tokens and cost per day, agent, model and source tool, with the top chats", runUsage, argsNone, false},
		{"related", "find chats close in meaning to a chat or text", runRelated, argsChatID, false},
		{"delete", "delete a chat and everything it holds", runDelete, argsChatID, false},
		{"reindex", "bring derived indexes up to date (--embeddings: every chat's vector)", runReindex, argsNone, false},
		{"digest", "summarise and title the chats that are due, or those active lately (--once, --since)", runDigest, argsNone, true},
		{"redact", "re-apply redaction rules to stored data", runRedact, argsNone, true},
		{"bench", "generate corpora and run benchmarks", runBench, argsNone, true},
		{"migrate", "create or upgrade the database schema and print its version", runMigrate, argsNone, true},
		{"copy", "copy a whole history between databases (SQLite, PostgreSQL)", runCopy, argsNone, true},
		{"serve", "serve the history API over HTTP (docs/HTTP.md)", runServe, argsNone, true},
		{"mcp", "serve the history to an agent over MCP on stdio (docs/MCP.md)", runMCP, argsNone, false},
		{"keys", "create, list and revoke the server's API keys", runKeys, argsNone, true},
		{"replicate", "push this host's history to the configured remote, check it, show the queue", runReplicate, argsNone, true},
		{"version", "print the version", runVersion, argsNone, false},
	}
}

// errDescribed ends a run in describing mode, once the command has defined its flags.
var errDescribed = errors.New("flags described")

// Run runs the command line args (without the program name).
func (m *Main) Run(ctx context.Context, args []string) error {
	args, err := m.takeGlobalFlags(args) // --server URL --key KEY: client mode (remote.go)
	if err != nil {
		return err
	}
	m.jsonErrors = wantsJSON(args)
	root := m.rootCommand(ctx)
	root.SetArgs(args)
	err = root.ExecuteContext(ctx)
	if err != nil && !isUsage(err) && strings.HasPrefix(err.Error(), "unknown command") {
		return usagef("%s (run 'annals --help' for the list)", strings.SplitN(err.Error(), "\n", 2)[0])
	}
	return err
}

// completionShells are the shells annals completion writes scripts for.
const completionShells = "bash, zsh, fish or powershell"

// rootCommand is the cobra tree: one command per entry of commands(), each parsing its own
// flags, plus --version and the completion scripts.
func (m *Main) rootCommand(ctx context.Context) *cobra.Command {
	v := buildVersion()
	root := &cobra.Command{
		Use:           "annals",
		Short:         "annals keeps, searches and serves the history of AI-agent conversations",
		Version:       v.String(),
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if m.interactive() && m.IsTerminal(m.Stdout) {
				return runBrowse(ctx, m, nil) // a person at a terminal: the browser
			}
			m.usage(m.Stderr)
			return usagef("no command given")
		},
	}
	root.SetIn(m.Stdin)
	root.SetOut(m.Stdout) // before the completion command, which keeps the writer it is made with
	root.SetErr(m.Stderr)
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetHelpFunc(func(*cobra.Command, []string) { m.usage(m.Stdout) })
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return usagef("%v (run 'annals --help')", err)
	})
	for _, c := range m.commands() {
		root.AddCommand(m.subcommand(ctx, c))
	}
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			// The scripts are its subcommands; called without one, or with an unknown shell, it
			// is a usage mistake naming the shells (cobra would print the help and succeed).
			c.Args = cobra.ArbitraryArgs
			c.RunE = func(_ *cobra.Command, args []string) error {
				if len(args) == 0 {
					return usagef("completion needs a shell: %s (annals completion bash)", completionShells)
				}
				return usagef("completion: unknown shell %q (want %s)", args[0], completionShells)
			}
		}
	}
	return root
}

func (m *Main) subcommand(ctx context.Context, c command) *cobra.Command {
	cmd := &cobra.Command{
		Use:                c.name,
		Short:              c.summary,
		DisableFlagParsing: true, // the command parses its own flags, anywhere on the line
		SilenceErrors:      true,
		SilenceUsage:       true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if c.localOnly && m.Getenv("ANNALS_SERVER") != "" && !helpAsked(args) {
				return needsLocal(c.name)
			}
			err := c.run(ctx, m, args)
			if errors.Is(err, pflag.ErrHelp) {
				return nil
			}
			return err
		},
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return m.completeArgs(ctx, c, args, toComplete)
		},
	}
	cmd.SetHelpFunc(func(*cobra.Command, []string) { _ = c.run(ctx, m, []string{"--help"}) })
	return cmd
}

func (m *Main) usage(w io.Writer) {
	fmt.Fprintln(w, "annals keeps, searches and serves the history of AI-agent conversations.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: annals <command> [flags] [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range m.commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "  %-10s %s\n", "completion", "print a shell completion script: bash, zsh, fish or powershell")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Flags may come before or after arguments; '--' ends them (annals rename ID -- --not-a-flag).")
	fmt.Fprintln(w, "Every command takes --db PATH (or $ANNALS_DB); the default database is")
	fmt.Fprintln(w, "$XDG_DATA_HOME/annals/annals.db, else ~/.local/share/annals/annals.db.")
	fmt.Fprintln(w, "Configuration (YAML) is read from --config, $ANNALS_CONFIG, else")
	fmt.Fprintln(w, "$XDG_CONFIG_HOME/annals/config.yaml or ~/.config/annals/config.yaml (docs/CONFIG.md).")
	fmt.Fprintln(w, "annals --server URL --key KEY <command> (or $ANNALS_SERVER, $ANNALS_KEY) runs the")
	fmt.Fprintln(w, "history commands, ingest, import and mcp against an annals server instead of a local")
	fmt.Fprintln(w, "database (docs/HTTP.md); serve, keys, migrate, copy, bench and redact refuse it.")
	fmt.Fprintln(w, "A chat id may be given whole, as a unique prefix, or as the source tool's own id")
	fmt.Fprintln(w, "(7f3c2a10 finds claude-code:7f3c2a10-...). Exit codes: 0 ok, 1 error, 2 usage, 3 not found.")
	fmt.Fprintln(w, "Run 'annals <command> --help' for a command's flags, 'annals --version' for the version.")
}

// flagSet returns the flag set of one command. Its usage prints the command's synopsis and
// flags; parse decides where it goes.
func (m *Main) flagSet(name, synopsis, about string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned as one line, not printed with the usage
	fs.SortFlags = true
	fs.Usage = func() {
		fmt.Fprintf(m.Stdout, "Usage: annals %s %s\n\n%s\n\nFlags:\n%s", name, synopsis, about, fs.FlagUsages())
	}
	return fs
}

// parse parses flags anywhere among the arguments, printing help to stdout for --help. A
// mistake is one line that names it and points at --help.
func (m *Main) parse(fs *pflag.FlagSet, args []string) error {
	if m.describing {
		m.described = fs
		return errDescribed
	}
	if helpAsked(args) {
		fs.Usage()
		return pflag.ErrHelp
	}
	if err := fs.Parse(args); err != nil {
		return usagef("%s: %v (run 'annals %s --help')", fs.Name(), err, fs.Name())
	}
	return nil
}

// helpAsked reports whether args ask for help (-h, --help) before any "--", or a command's
// help subcommand (annals keys help).
func helpAsked(args []string) bool {
	for i, a := range args {
		switch {
		case a == "--":
			return false
		case a == "-h" || a == "--help" || a == "-help", i == 0 && a == "help":
			return true
		}
	}
	return false
}
