package queryview

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// The reference reads its parameters with Python's own conversions: `value or default` (so
// every falsy value means "not given"), int(value) for integers, and str(value) where it binds
// text. A client of the reference sends whatever those accept, so the view reads them the same
// way; these helpers are Python's rules on JSON values, in one place.

// falsy reports whether a JSON value is false to Python: null, false, 0, "", [] or {}.
func falsy(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case float64:
		return x == 0
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// pyIntString reads s as Python's int(s) does in base 10: spaces around, an optional sign and
// ASCII digits, single underscores allowed between digits ("+1_000"). ok is false for anything
// else ("3.5", "ten", ""); a value beyond int64 is clamped, with ok still true.
func pyIntString(s string) (n int64, ok bool) {
	s = strings.TrimSpace(s)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return 0, false
	}
	digits := strings.ReplaceAll(s, "_", "")
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseUint(digits, 10, 64)
	switch {
	case err != nil || v > math.MaxInt64 && !neg:
		if neg {
			return math.MinInt64, true
		}
		return math.MaxInt64, true
	case neg && v > math.MaxInt64:
		return math.MinInt64, true
	case neg:
		return -int64(v), true
	}
	return int64(v), true
}

// pyInt reads a JSON value as Python's int(value) does: a number cut toward zero, true and
// false as 1 and 0, a string by pyIntString. ok is false for anything else (null, a list, an
// object, a string holding no integer), which the reference refuses with a 400.
func pyInt(raw json.RawMessage) (n int64, ok bool) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return 0, false
	case string(raw) == "true":
		return 1, true
	case string(raw) == "false":
		return 0, true
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
		return pyIntString(s)
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		if v, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			return v, true
		}
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil && !math.IsInf(f, 0) {
			return 0, false
		}
		switch {
		case f >= math.MaxInt64:
			return math.MaxInt64, true
		case f <= math.MinInt64:
			return math.MinInt64, true
		}
		return int64(f), true
	}
	return 0, false
}

// pyStr is Python's str(value) of a JSON scalar, as the reference binds a text parameter: a
// string as it is, an integer in decimal, a fraction as Python writes a float, true as "True".
// ok is false for null, a list or an object.
func pyStr(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return "", false
	case raw[0] == '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err == nil
	case string(raw) == "true":
		return "True", true
	case string(raw) == "false":
		return "False", true
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		if _, err := strconv.ParseInt(string(raw), 10, 64); err == nil || !bytes.ContainsAny(raw, ".eE") {
			return string(raw), true
		}
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return "", false
		}
		return pyFloat(f), true
	}
	return "", false
}

// pyFloat writes f as Python's repr(float): the shortest digits that read back, positional from
// 1e-4 up to 1e16 (with ".0" when whole), else with an exponent ("1e+16", "1.5e-05").
func pyFloat(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return map[bool]string{true: "inf", false: "nan"}[math.IsInf(f, 1)]
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	if exp >= -4 && exp < 16 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	sign := "+"
	if exp < 0 {
		sign, exp = "-", -exp
	}
	return mant + "e" + sign + strconv.Itoa(exp/10) + strconv.Itoa(exp%10)
}
