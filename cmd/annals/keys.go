package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

func runKeys(ctx context.Context, m *Main, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		w := m.Stdout
		if len(args) == 0 {
			w = m.Stderr
		}
		fmt.Fprintln(w, "Usage: annals keys create|list|revoke [flags]")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Manage the API keys of 'annals serve'. A key is shown once, at creation; the")
		fmt.Fprintln(w, "database keeps only its SHA-256 hash. Each key acts as one principal.")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "  create  --tenant T [--user U] [--agent A] [--role member|operator|admin] [--scope self,user,tenant,global] [--name N]")
		fmt.Fprintln(w, "  list    every key, without secrets")
		fmt.Fprintln(w, "  revoke  ID")
		if len(args) == 0 {
			return usagef("keys needs a subcommand: create, list or revoke")
		}
		return nil
	}
	switch args[0] {
	case "create":
		return runKeysCreate(ctx, m, args[1:])
	case "list":
		return runKeysList(ctx, m, args[1:])
	case "revoke":
		return runKeysRevoke(ctx, m, args[1:])
	}
	return usagef("unknown keys subcommand %q (want create, list or revoke)", args[0])
}

// openKeys opens the local database's key store: keys live with the data they guard, never
// behind --server (the command refuses a configured server; cli.go).
func (m *Main) openKeys(ctx context.Context, c *common) (annals.KeyStore, error) {
	a, err := m.open(ctx, c, false)
	if err != nil {
		return nil, err
	}
	ks, ok := a.store.(annals.KeyStore)
	if !ok {
		return nil, annals.Errorf(annals.EINVALID, "this database backend does not keep API keys")
	}
	return ks, nil
}

// defaultScopes are a new key's scopes when --scope is not given: what its identity anchors
// (self for an agent, user for a user), tenant for a key with neither, every scope for an admin.
func defaultScopes(p *annals.Principal) []annals.Scope {
	if p.Role == annals.RoleAdmin {
		return annals.Scopes
	}
	var out []annals.Scope
	if p.AgentID != "" {
		out = append(out, annals.ScopeSelf)
	}
	if p.UserID != "" {
		out = append(out, annals.ScopeUser)
	}
	if len(out) == 0 {
		out = append(out, annals.ScopeTenant)
	}
	return out
}

// createdKey is what keys create prints with --json: the stored key and, once, its secret.
type createdKey struct {
	*annals.APIKey
	Secret string `json:"secret"`
}

func runKeysCreate(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("keys create", "--tenant T [flags]", "Create an API key and print its secret once. Store the secret now: only its\nhash is kept. The key acts as the principal given by the flags.")
	c := commonFlags(fs)
	tenant := fs.String("tenant", "", "the key's tenant (required)")
	user := fs.String("user", "", "the key's user: chats it creates get this user, and scope user reads them")
	agent := fs.String("agent", "", "the key's agent: chats it creates get this agent, and scope self reads them")
	role := fs.String("role", string(annals.RoleMember), "member, operator (may delete any chat in scope, read /metrics) or admin (may use scope global)")
	scope := fs.String("scope", "", "comma-separated history scopes: self, user, tenant, global (default: self with --agent, user with --user, else tenant; every scope for an admin)")
	name := fs.String("name", "", "a label for the key")
	asJSON := fs.Bool("json", false, "print the key and its secret as JSON")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("keys create takes no arguments, got %q", fs.Arg(0))
	}
	if *tenant == "" {
		return usagef("keys create needs --tenant")
	}
	r, err := annals.ParseRole(*role)
	if err != nil {
		return usagef("--role: %s", annals.ErrorMessage(err))
	}
	p := annals.Principal{TenantID: *tenant, UserID: *user, AgentID: *agent, Role: r}
	if *scope == "" {
		p.Scopes = defaultScopes(&p)
	} else {
		var list []string
		for _, s := range strings.Split(*scope, ",") {
			if s = strings.TrimSpace(s); s != "" {
				list = append(list, s)
			}
		}
		if p.Scopes, err = history.ParseScopeList(list); err != nil {
			return usagef("--scope: %s", strings.TrimPrefix(annals.ErrorMessage(err), "history_scope: "))
		}
	}
	for _, s := range p.Scopes {
		if s == annals.ScopeGlobal && r != annals.RoleAdmin {
			return usagef("--scope global reaches every tenant and needs --role admin")
		}
	}
	secret, err := annals.NewKeySecret()
	if err != nil {
		return err
	}
	id, err := annals.NewKeyID()
	if err != nil {
		return err
	}
	ks, err := m.openKeys(ctx, c)
	if err != nil {
		return err
	}
	key, err := ks.CreateKey(ctx, &annals.APIKey{ID: id, Name: *name, Principal: p, Hash: annals.HashKeySecret(secret)})
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(m.Stdout).Encode(createdKey{APIKey: key, Secret: secret})
	}
	fmt.Fprintf(m.Stdout, "Created API key %s: %s, scopes %s.\n", key.ID, describePrincipal(&key.Principal), joinScopes(key.Principal.Scopes))
	fmt.Fprintln(m.Stdout, "Its secret is shown only now; store it (for example in ANNALS_KEY):")
	fmt.Fprintln(m.Stdout)
	fmt.Fprintln(m.Stdout, "  "+secret)
	fmt.Fprintln(m.Stdout)
	fmt.Fprintln(m.Stdout, "A running 'annals serve' in local mode starts requiring keys within a second.")
	return nil
}

func describePrincipal(p *annals.Principal) string {
	s := fmt.Sprintf("tenant %s", p.TenantID)
	if p.UserID != "" {
		s += ", user " + p.UserID
	}
	if p.AgentID != "" {
		s += ", agent " + p.AgentID
	}
	return s + ", role " + string(p.Role)
}

func joinScopes(scopes []annals.Scope) string {
	if len(scopes) == 0 {
		return "none (history denied)"
	}
	parts := make([]string, len(scopes))
	for i, s := range scopes {
		parts[i] = string(s)
	}
	return strings.Join(parts, ",")
}

func runKeysList(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("keys list", "[flags]", "List API keys (never their secrets), revoked ones included.")
	c := commonFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON: a list of keys")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("keys list takes no arguments, got %q", fs.Arg(0))
	}
	ks, err := m.openKeys(ctx, c)
	if err != nil {
		return err
	}
	keys, err := ks.ListKeys(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(m.Stdout).Encode(keys)
	}
	if len(keys) == 0 {
		fmt.Fprintln(m.Stdout, "No API keys: 'annals serve' runs in local mode (loopback only). Create one with 'annals keys create --tenant T'.")
		return nil
	}
	tw := tabwriter.NewWriter(m.human(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tTENANT\tUSER\tAGENT\tROLE\tSCOPES\tCREATED\tREVOKED")
	for _, k := range keys {
		revoked := "-"
		if k.RevokedAt != nil {
			revoked = humanTime(*k.RevokedAt)
		}
		p := k.Principal
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, orDash(k.Name), p.TenantID, orDash(p.UserID), orDash(p.AgentID),
			p.Role, joinScopes(p.Scopes), humanTime(k.CreatedAt), revoked)
	}
	return tw.Flush()
}

func runKeysRevoke(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("keys revoke", "[flags] ID", "Revoke an API key: requests carrying it get 401 from then on.")
	c := commonFlags(fs)
	asJSON := fs.Bool("json", false, "print the revoked key as JSON")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("keys revoke needs exactly one key id (see 'annals keys list')")
	}
	ks, err := m.openKeys(ctx, c)
	if err != nil {
		return err
	}
	key, err := ks.RevokeKey(ctx, fs.Arg(0))
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(m.Stdout).Encode(key)
	}
	fmt.Fprintf(m.Stdout, "Revoked API key %s (%s).\n", key.ID, describePrincipal(&key.Principal))
	return nil
}
