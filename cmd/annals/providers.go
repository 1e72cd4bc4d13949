package main

import (
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/summarize"
)

// TenantConfig is one tenant's own providers: its chats are recapped with its summarizer, and
// with its agents' own ones for their chats, never with another tenant's (docs/PROVIDERS.md,
// "One provider and key per tenant or agent").
type TenantConfig struct {
	Summarizer *ProviderConfig              `yaml:"summarizer"`
	Agents     map[string]TenantAgentConfig `yaml:"agents"`
}

// TenantAgentConfig is one agent's own providers within its tenant.
type TenantAgentConfig struct {
	Summarizer *ProviderConfig `yaml:"summarizer"`
}

// validateTenants checks every tenant's and agent's provider blocks like the default ones.
func (c *Config) validateTenants() error {
	for tenant, t := range c.Tenants {
		if tenant == "" {
			return annals.Errorf(annals.EINVALID, "tenants: a tenant name is empty")
		}
		if t.Summarizer == nil && len(t.Agents) == 0 {
			return annals.Errorf(annals.EINVALID, "tenants.%s needs a summarizer or agents with one", tenant)
		}
		if t.Summarizer != nil {
			if err := checkProvider("tenants."+tenant+".summarizer", *t.Summarizer, summarizerProviders); err != nil {
				return err
			}
		}
		for agent, a := range t.Agents {
			section := "tenants." + tenant + ".agents." + agent + ".summarizer"
			if agent == "" || a.Summarizer == nil {
				return annals.Errorf(annals.EINVALID, "%s is required", section)
			}
			if err := checkProvider(section, *a.Summarizer, summarizerProviders); err != nil {
				return err
			}
		}
	}
	return nil
}

// summarizer builds the summarizer of recaps: the default block's (the offline extractive one
// unless configured) and, when the config has tenants: blocks, the chooser that gives each
// tenant's and agent's chats their own (summarize.ByOwner, the one place the choice is made).
func (m *Main) summarizer(cfg *Config) (annals.Summarizer, error) {
	def, err := m.summarizerFrom("summarizer", cfg.Summarizer)
	if err != nil || len(cfg.Tenants) == 0 {
		return def, err
	}
	var choices []summarize.Choice
	for tenant, t := range cfg.Tenants {
		if t.Summarizer != nil {
			s, err := m.summarizerFrom("tenants."+tenant+".summarizer", *t.Summarizer)
			if err != nil {
				return nil, err
			}
			choices = append(choices, summarize.Choice{Tenant: tenant, Summarizer: s})
		}
		for agent, a := range t.Agents {
			s, err := m.summarizerFrom("tenants."+tenant+".agents."+agent+".summarizer", *a.Summarizer)
			if err != nil {
				return nil, err
			}
			choices = append(choices, summarize.Choice{Tenant: tenant, Agent: agent, Summarizer: s})
		}
	}
	return summarize.NewByOwner(def, choices...)
}

// summarizerFrom builds one summarizer block; section names it in errors. provider: none is nil
// (recap refused); the default is the offline extractive summarizer.
func (m *Main) summarizerFrom(section string, p ProviderConfig) (annals.Summarizer, error) {
	switch p.Provider {
	case "", "extractive":
		return summarize.Extractive{}, nil
	case "openai":
		key, err := m.apiKey(section, p)
		if err != nil {
			return nil, err
		}
		return summarize.NewOpenAI(summarize.OpenAIConfig{BaseURL: p.BaseURL, APIKey: key, Model: p.Model, Retrying: p.retrying(), Timeout: p.timeout()})
	case "anthropic":
		key, err := m.apiKey(section, p)
		if err != nil {
			return nil, err
		}
		return summarize.NewAnthropic(summarize.AnthropicConfig{BaseURL: p.BaseURL, APIKey: key, Model: p.Model, Retrying: p.retrying(), Timeout: p.timeout()})
	}
	return nil, nil
}

// retrying and timeout are a model client's settings (summarizer or embedder); the clients
// reject negatives.
func (p ProviderConfig) retrying() summarize.Retrying {
	return summarize.Retrying{Retries: p.Retries, MaxBackoff: time.Duration(p.MaxBackoffSeconds) * time.Second, Concurrency: p.Concurrency}
}

func (p ProviderConfig) timeout() time.Duration { return time.Duration(p.TimeoutSeconds) * time.Second }
