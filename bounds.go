package annals

import (
	"math"
	"time"
)

// Bounds on the numbers and times a caller may give. Token counts and costs are summed into a
// chat's totals, so a value near the integer limit would overflow the sum and break every read
// of the chat; times are stored as nanoseconds since 1970, which wrap outside 1677–2262. The
// bounds keep every stored value, and every sum of up to millions of them, exact and readable.
const (
	// MaxTokens bounds the input or output token count of one entry or run.
	MaxTokens = 1_000_000_000_000 // 10^12
	// MaxCostUSD bounds the cost of one run.
	MaxCostUSD = 1_000_000_000 // 10^9
)

// The range of times annals stores: MinTime inclusive, MaxTime exclusive. Times outside it are
// refused at capture and in filters rather than wrapped.
var (
	MinTime = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	MaxTime = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
)

// TimeRangeText describes the accepted time range in error messages and docs.
const TimeRangeText = "from 1900-01-01T00:00:00Z up to but not including 2200-01-01T00:00:00Z"

// ValidateTime checks that a time lies in the stored range. The zero time means "not given" and
// passes: the store stamps its own.
func ValidateTime(field string, t time.Time) error {
	if t.IsZero() {
		return nil
	}
	if t.Before(MinTime) || !t.Before(MaxTime) {
		return Errorf(EINVALID, "%s %s is outside the range annals stores (%s)", field, t.UTC().Format(time.RFC3339Nano), TimeRangeText)
	}
	return nil
}

// ValidateTimePtr is ValidateTime for an optional time.
func ValidateTimePtr(field string, t *time.Time) error {
	if t == nil {
		return nil
	}
	if t.IsZero() {
		return Errorf(EINVALID, "%s is the zero time (leave it out instead)", field)
	}
	return ValidateTime(field, *t)
}

// ValidateBound checks a time a caller gives as a filter bound (a query's after: and before:,
// a list's from and to, the query view's since and until). Unlike ValidateTime, the zero time
// is not "not given" here: a bound left out never reaches this check, so 0001-01-01T00:00:00Z
// was written by the caller and is refused like every other time outside the stored range (it
// would otherwise read as "no bound"). Every parser of a time bound calls this one check
// (ParseTimeBound, the search language's after:/before:, the query view's since/until).
func ValidateBound(field string, t time.Time) error {
	if t.IsZero() || t.Before(MinTime) || !t.Before(MaxTime) {
		return Errorf(EINVALID, "%s %s is outside the range annals stores (%s)", field, t.UTC().Format(time.RFC3339Nano), TimeRangeText)
	}
	return nil
}

// ValidateBoundPtr is ValidateBound for an optional bound: nil is "no bound".
func ValidateBoundPtr(field string, t *time.Time) error {
	if t == nil {
		return nil
	}
	return ValidateBound(field, *t)
}

// validateTokens checks a token count: non-negative and at most MaxTokens.
func validateTokens(field string, n int64) error {
	if n < 0 || n > MaxTokens {
		return Errorf(EINVALID, "%s is %d (want 0 to %d)", field, n, int64(MaxTokens))
	}
	return nil
}

// validateCost checks a cost in USD: a finite number from 0 to MaxCostUSD.
func validateCost(field string, v float64) error {
	if math.IsNaN(v) || v < 0 || v > MaxCostUSD {
		return Errorf(EINVALID, "%s is %v (want a number from 0 to %d)", field, v, MaxCostUSD)
	}
	return nil
}

// SaturatingAdd adds two non-negative counters, answering math.MaxInt64 instead of wrapping.
func SaturatingAdd(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// SaturatingInt converts a stored number (an integer, or a float that an older database may
// hold where an integer sum overflowed) to an int64, clamping instead of wrapping. Anything else
// reads as 0.
func SaturatingInt(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		switch {
		case math.IsNaN(n):
			return 0
		case n >= math.MaxInt64:
			return math.MaxInt64
		case n <= math.MinInt64:
			return math.MinInt64
		}
		return int64(n)
	}
	return 0
}

// FiniteCost makes a stored cost encodable: NaN reads as 0 and an infinity as the largest float,
// so an old row holding one (written before costs were bounded) never breaks a JSON answer.
func FiniteCost(v float64) float64 {
	switch {
	case math.IsNaN(v):
		return 0
	case math.IsInf(v, 1):
		return math.MaxFloat64
	case math.IsInf(v, -1):
		return -math.MaxFloat64
	}
	return v
}
