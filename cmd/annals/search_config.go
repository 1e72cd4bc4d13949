package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// SearchConfig is the search: block (docs/CONFIG.md, "Search").
type SearchConfig struct {
	// QueryEmbedTimeout is how long a search waits for its query's embedding (a Go duration,
	// "500ms", "2s"); empty means history.DefaultQueryEmbedTimeout.
	QueryEmbedTimeout string `yaml:"query_embed_timeout"`
}

// maxQueryEmbedTimeout bounds the query embedding's deadline: past it a search by relevance
// would wait longer than any request may.
const maxQueryEmbedTimeout = 10 * time.Minute

// queryEmbedEnv names the environment variable that sets the query embedding's deadline.
const queryEmbedEnv = "ANNALS_QUERY_EMBED_TIMEOUT"

// parseQueryEmbedTimeout reads one source of the query embedding's deadline; source names it
// (the config key, the variable or the flag) in the message about a bad value.
func parseQueryEmbedTimeout(source, value string) (time.Duration, error) {
	d, err := time.ParseDuration(value)
	if err != nil || d <= 0 || d > maxQueryEmbedTimeout {
		// The parse error stays the cause (for logs); the message says what is allowed.
		return 0, &annals.Error{Code: annals.EINVALID, Err: err, Message: fmt.Sprintf(
			"%s %q is not allowed: want a positive duration up to %s, such as 500ms or 2s (the default is %s)",
			source, value, maxQueryEmbedTimeout, history.DefaultQueryEmbedTimeout)}
	}
	return d, nil
}

func (s SearchConfig) validate() error {
	if s.QueryEmbedTimeout == "" {
		return nil
	}
	_, err := parseQueryEmbedTimeout("search.query_embed_timeout", s.QueryEmbedTimeout)
	return err
}

// queryEmbedFlag registers --query-embed-timeout on a command that searches a local database.
func queryEmbedFlag(fs *pflag.FlagSet) *string {
	return fs.String("query-embed-timeout", "", "how long a search waits for its query's embedding before a default search ranks by the words alone (a duration such as 500ms; default $"+
		queryEmbedEnv+", else search.query_embed_timeout in the config, else "+history.DefaultQueryEmbedTimeout.String()+"; docs/PROVIDERS.md)")
}

// queryEmbedTimeout resolves the query embedding's deadline: the flag, else the environment
// variable, else the config; 0 (the service's default) when none is set.
func (m *Main) queryEmbedTimeout(c *common, cfg *Config) (time.Duration, error) {
	if c.queryEmbed != nil && *c.queryEmbed != "" {
		d, err := parseQueryEmbedTimeout("--query-embed-timeout", *c.queryEmbed)
		if err != nil {
			return 0, usagef("%s", annals.ErrorMessage(err))
		}
		return d, nil
	}
	if v := m.Getenv(queryEmbedEnv); v != "" {
		return parseQueryEmbedTimeout(queryEmbedEnv, v)
	}
	if cfg.Search.QueryEmbedTimeout != "" {
		return parseQueryEmbedTimeout("search.query_embed_timeout", cfg.Search.QueryEmbedTimeout)
	}
	return 0, nil
}
