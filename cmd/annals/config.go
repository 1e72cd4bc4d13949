package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// Config is the annals configuration file ($XDG_CONFIG_HOME/annals/config.yaml, else
// ~/.config/annals/config.yaml; --config or ANNALS_CONFIG to override). Every field is optional.
type Config struct {
	// Database is the default database path when neither --db nor ANNALS_DB is set.
	Database string `yaml:"database"`
	// Principal is who the CLI acts as on a local database. By default it is the local owner:
	// an admin of tenant "local" allowed every scope.
	Principal *PrincipalConfig `yaml:"principal"`
	// Agents configure per-agent history scopes for agents that call annals (MCP, HTTP).
	Agents map[string]AgentConfig `yaml:"agents"`
	Redact RedactConfig           `yaml:"redact"`
	// Embedder powers related; Summarizer powers recap.
	Embedder   ProviderConfig `yaml:"embedder"`
	Summarizer ProviderConfig `yaml:"summarizer"`
	Related    RelatedConfig  `yaml:"related"`
	// Tenants give a tenant, or an agent of a tenant, its own summarizer and key (providers.go).
	Tenants map[string]TenantConfig `yaml:"tenants"`
	// Import configures `annals import` defaults and the watch that `annals serve` runs
	// (docs/IMPORT.md).
	Import ImportConfig `yaml:"import"`
	// Pricing names a JSON price table laid over the built-in one, for the usage report's
	// estimated costs (docs/CONFIG.md).
	Pricing PricingConfig `yaml:"pricing"`
	// Remote is the shared collection this host replicates to (docs/REPLICATION.md).
	Remote *RemoteConfig `yaml:"remote"`
	Digest DigestConfig  `yaml:"digest"` // background digests, scheduled recap (digest_config.go)
	Search SearchConfig  `yaml:"search"` // the search's query embedding deadline (search_config.go)
}

// PricingConfig configures the price table of usage estimates.
type PricingConfig struct {
	File string `yaml:"file"`
}

// PrincipalConfig is the identity the CLI uses.
type PrincipalConfig struct {
	Tenant       string   `yaml:"tenant"`
	User         string   `yaml:"user"`
	Agent        string   `yaml:"agent"`
	Role         string   `yaml:"role"`
	HistoryScope []string `yaml:"history_scope"`
}

// AgentConfig is one agent's access to history. No history_scope means no access.
type AgentConfig struct {
	HistoryScope []string `yaml:"history_scope"`
}

// RedactConfig adds to the built-in redaction rules.
type RedactConfig struct {
	// Env names environment variables whose exact values are secrets.
	Env   []string           `yaml:"env"`
	Rules []RedactRuleConfig `yaml:"rules"`
	// DisableBuiltin turns the built-in credential rules off (custom rules and env still apply).
	DisableBuiltin bool `yaml:"disable_builtin"`
}

// RedactRuleConfig is one custom redaction rule.
type RedactRuleConfig struct {
	Name    string `yaml:"name"`
	Pattern string `yaml:"pattern"`
}

// ProviderConfig selects and configures an embedder or summarizer.
type ProviderConfig struct {
	Provider  string `yaml:"provider"`
	BaseURL   string `yaml:"base_url"`
	APIKeyEnv string `yaml:"api_key_env"`
	Model     string `yaml:"model"`
	Dimension int    `yaml:"dimension"`
	// Model clients only (docs/PROVIDERS.md): 0 means the default; retries -1 means none.
	TimeoutSeconds    int `yaml:"timeout_seconds"`
	Retries           int `yaml:"retries"`
	MaxBackoffSeconds int `yaml:"max_backoff_seconds"`
	Concurrency       int `yaml:"concurrency"`
}

// RelatedConfig tunes the related op.
type RelatedConfig struct {
	CandidateCap int `yaml:"candidate_cap"`
}

var (
	embedderProviders   = []string{"learned", "hashing", "openai", "none"}
	summarizerProviders = []string{"extractive", "openai", "anthropic", "none"}
)

// configPath resolves the config file: --config, ANNALS_CONFIG, then the XDG default.
// explicit reports whether the user named the file (then it must exist).
func (m *Main) configPath(flagValue string) (path string, explicit bool) {
	if flagValue != "" {
		return flagValue, true
	}
	if v := m.Getenv("ANNALS_CONFIG"); v != "" {
		return v, true
	}
	if v := m.Getenv("XDG_CONFIG_HOME"); v != "" && filepath.IsAbs(v) {
		return filepath.Join(v, "annals", "config.yaml"), false
	}
	home, err := m.HomeDir()
	if err != nil || home == "" {
		return "", false
	}
	return filepath.Join(home, ".config", "annals", "config.yaml"), false
}

// loadConfig reads and validates the config file. A missing default file is an empty config.
func (m *Main) loadConfig(flagValue string) (*Config, error) {
	path, explicit := m.configPath(flagValue)
	cfg := &Config{}
	if path == "" {
		return cfg, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && !explicit {
		return cfg, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read config %s: %w", path, err)
	}
	if err := decodeConfig(bytes.NewReader(data), cfg); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// decodeConfig decodes strictly (unknown keys are mistakes) and validates.
func decodeConfig(r io.Reader, cfg *Config) error {
	dec := yaml.NewDecoder(r)
	dec.KnownFields(true)
	if err := dec.Decode(cfg); err != nil && !errors.Is(err, io.EOF) {
		return annals.Errorf(annals.EINVALID, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return cfg.validate()
}

func (c *Config) validate() error {
	for _, check := range []func() error{c.Import.validate, c.Remote.validate, c.Digest.validate, c.Search.validate} {
		if err := check(); err != nil {
			return err
		}
	}
	if c.Principal != nil {
		if _, err := c.Principal.principal(); err != nil {
			return err
		}
	}
	for name, a := range c.Agents {
		if _, err := history.ParseScopeList(a.HistoryScope); err != nil {
			return annals.Errorf(annals.EINVALID, "agents.%s.%s", name, annals.ErrorMessage(err))
		}
	}
	if err := checkProvider("embedder", c.Embedder, embedderProviders); err != nil {
		return err
	}
	if err := checkProvider("summarizer", c.Summarizer, summarizerProviders); err != nil {
		return err
	}
	if err := c.validateTenants(); err != nil {
		return err
	}
	if c.Embedder.Dimension < 0 || c.Embedder.Dimension > 8192 {
		return annals.Errorf(annals.EINVALID, "embedder.dimension %d is out of range (1 to 8192; 0 means the provider's default)", c.Embedder.Dimension)
	}
	if c.Related.CandidateCap < 0 || c.Related.CandidateCap > 100000 {
		return annals.Errorf(annals.EINVALID, "related.candidate_cap %d is out of range (1 to 100000; 0 means %d)", c.Related.CandidateCap, annals.DefaultCandidateCap)
	}
	for i, r := range c.Redact.Rules {
		if r.Name == "" || r.Pattern == "" {
			return annals.Errorf(annals.EINVALID, "redact.rules[%d] needs both name and pattern", i)
		}
	}
	return nil
}

func checkProvider(section string, p ProviderConfig, allowed []string) error {
	if p.Provider == "" {
		return nil
	}
	for _, a := range allowed {
		if p.Provider == a {
			if (a == "openai" || a == "anthropic") && p.Model == "" {
				return annals.Errorf(annals.EINVALID, "%s.model is required for provider %s", section, a)
			}
			return nil
		}
	}
	return annals.Errorf(annals.EINVALID, "%s.provider %q is unknown (want one of: %s)", section, p.Provider, strings.Join(allowed, ", "))
}

// principal builds the CLI's principal from config.
func (p *PrincipalConfig) principal() (*annals.Principal, error) {
	out := &annals.Principal{TenantID: p.Tenant, UserID: p.User, AgentID: p.Agent, Role: annals.RoleMember}
	if out.TenantID == "" {
		out.TenantID = "local"
	}
	if p.Role != "" {
		role, err := annals.ParseRole(p.Role)
		if err != nil {
			return nil, annals.Errorf(annals.EINVALID, "principal.role: %s", annals.ErrorMessage(err))
		}
		out.Role = role
	}
	scopes, err := history.ParseScopeList(p.HistoryScope)
	if err != nil {
		return nil, annals.Errorf(annals.EINVALID, "principal.%s", annals.ErrorMessage(err))
	}
	out.Scopes = scopes
	return out, nil
}

// agentPolicy is the agents: block as the history service's policy; nil without the block.
func (c *Config) agentPolicy() (history.AgentPolicy, error) {
	if c.Agents == nil {
		return nil, nil
	}
	raw := make(map[string][]string, len(c.Agents))
	for name, a := range c.Agents {
		raw[name] = a.HistoryScope
	}
	return history.ParseAgentPolicy(raw)
}

// cliPrincipal is who the CLI acts as, before the door narrows it by the agents: policy: the
// configured principal, else the local owner.
func (c *Config) cliPrincipal() *annals.Principal {
	if c.Principal == nil {
		return history.LocalOwner()
	}
	p, _ := c.Principal.principal() // validated at load
	return p
}
