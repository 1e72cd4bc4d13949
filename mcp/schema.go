package mcp

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// A tool's input schema starts as the one inferred from its Go type (field names, types, which
// are required, no other properties) and is then given what inference cannot know: allowed
// values, bounds and defaults. The SDK validates every call against it and answers a bad one
// with a tool error naming the field, which the model can read and correct.

// tweak adjusts one property of an inferred schema.
type tweak func(*jsonschema.Schema)

func enum(values ...string) tweak {
	return func(s *jsonschema.Schema) {
		for _, v := range values {
			s.Enum = append(s.Enum, v)
		}
	}
}

func bounded(lo, hi float64, def any) tweak {
	return func(s *jsonschema.Schema) {
		s.Minimum, s.Maximum = &lo, &hi
		if def != nil {
			s.Default = jsonOf(def)
		}
	}
}

func atLeast(lo float64) tweak {
	return func(s *jsonschema.Schema) { s.Minimum = &lo }
}

// longest bounds a string argument: ids, cursors and queries are short, and an argument that
// is not would come back in an error message.
func longest(n int) tweak {
	return func(s *jsonschema.Schema) { s.MaxLength = &n }
}

// Bounds of string arguments.
const (
	maxIDArg     = 512
	maxCursorArg = 256
	maxQueryArg  = 4096
	maxNameArg   = 256
	maxTimeArg   = 64
	maxTextArg   = 1 << 16
)

// inputSchema infers T's schema and applies the tweaks by property name. A tweak naming a
// property T lacks is a mistake in this package, reported as an error so tests catch it.
func inputSchema[T any](tweaks map[string]tweak) (*jsonschema.Schema, error) {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, fmt.Errorf("infer input schema: %w", err)
	}
	for name, t := range tweaks {
		p, ok := s.Properties[name]
		if !ok {
			return nil, fmt.Errorf("input schema has no property %q", name)
		}
		t(p)
	}
	return s, nil
}

// jsonOf is the JSON of a default value (a number, a string, a bool: never an error).
func jsonOf(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
