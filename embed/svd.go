package embed

import (
	"context"
	"math"
	"math/rand/v2"
	"sort"
)

// sparseSym is a symmetric sparse matrix in compressed rows (both triangles stored).
type sparseSym struct {
	n      int
	rowPtr []int
	col    []int32
	val    []float32
}

// mulCols returns M·X for X given as columns of length n. It is the bulk of learning (seconds
// per call on a large vocabulary), so it stops when ctx ends: a server shutting down must not
// wait for a factorisation nobody will keep. It works on X and the product row-major (row j
// holds every column's j-th value next to each other), so each stored value of M multiplies one
// contiguous row instead of touching one cache line per column; every output value still sums
// its terms in the same order, so the result is the same to the bit.
func (m *sparseSym) mulCols(ctx context.Context, x [][]float64) ([][]float64, error) {
	l := len(x)
	xr := make([]float64, m.n*l)
	for c, col := range x {
		for j, v := range col {
			xr[j*l+c] = v
		}
	}
	or := make([]float64, m.n*l)
	for r := 0; r < m.n; r++ {
		if r%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		o := or[r*l : (r+1)*l]
		for p := m.rowPtr[r]; p < m.rowPtr[r+1]; p++ {
			j, v := int(m.col[p]), float64(m.val[p])
			for c, xv := range xr[j*l : (j+1)*l] {
				o[c] += v * xv
			}
		}
	}
	out := make([][]float64, l)
	for c := range out {
		out[c] = make([]float64, m.n)
		for r := range out[c] {
			out[c][r] = or[r*l+c]
		}
	}
	return out, nil
}

// orthonormalize makes the columns orthonormal in place (modified Gram-Schmidt, twice for
// stability); a column that vanishes is left zero.
func orthonormalize(cols [][]float64) {
	for pass := 0; pass < 2; pass++ {
		for i := range cols {
			for j := 0; j < i; j++ {
				d := dot(cols[i], cols[j])
				for r := range cols[i] {
					cols[i][r] -= d * cols[j][r]
				}
			}
			if n := math.Sqrt(dot(cols[i], cols[i])); n > 1e-12 {
				for r := range cols[i] {
					cols[i][r] /= n
				}
			} else {
				clear(cols[i])
			}
		}
	}
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// topEigen returns the k largest eigenvalues of the symmetric matrix m and their eigenvectors
// (as columns of length n), by a randomized range finder with power iterations (Halko,
// Martinsson and Tropp 2011) and a Jacobi eigensolver of the small projected matrix. It is
// deterministic: the random start is seeded. It returns ctx's error when ctx ends first.
func topEigen(ctx context.Context, m *sparseSym, k, oversample, iterations int) ([]float64, [][]float64, error) {
	l := min(k+oversample, m.n)
	rng := rand.New(rand.NewPCG(0x616e6e616c73, 0x7376640a))
	y := make([][]float64, l)
	for c := range y {
		y[c] = make([]float64, m.n)
		for r := range y[c] {
			y[c][r] = rng.NormFloat64()
		}
	}
	y, err := m.mulCols(ctx, y)
	if err != nil {
		return nil, nil, err
	}
	for range iterations {
		orthonormalize(y)
		if y, err = m.mulCols(ctx, y); err != nil {
			return nil, nil, err
		}
	}
	orthonormalize(y)
	my, err := m.mulCols(ctx, y)
	if err != nil {
		return nil, nil, err
	}
	b := make([][]float64, l) // Qᵀ M Q, symmetric l×l
	for i := range b {
		b[i] = make([]float64, l)
		for j := range b[i] {
			b[i][j] = dot(y[i], my[j])
		}
	}
	for i := range b { // symmetrize rounding
		for j := i + 1; j < l; j++ {
			a := (b[i][j] + b[j][i]) / 2
			b[i][j], b[j][i] = a, a
		}
	}
	vals, vecs := jacobiEigen(b)
	order := make([]int, l)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return vals[order[a]] > vals[order[b]] })
	k = min(k, l)
	outVals := make([]float64, k)
	outVecs := make([][]float64, k)
	for t := 0; t < k; t++ {
		e := order[t]
		outVals[t] = vals[e]
		v := make([]float64, m.n)
		for i := 0; i < l; i++ {
			w := vecs[i][e]
			if w == 0 {
				continue
			}
			for r := range v {
				v[r] += w * y[i][r]
			}
		}
		outVecs[t] = v
	}
	return outVals, outVecs, nil
}

// jacobiEigen diagonalises a small symmetric matrix a (destroyed) by cyclic Jacobi rotations:
// eigenvalues, and eigenvectors as the columns of the returned matrix.
func jacobiEigen(a [][]float64) ([]float64, [][]float64) {
	n := len(a)
	v := make([][]float64, n)
	for i := range v {
		v[i] = make([]float64, n)
		v[i][i] = 1
	}
	for sweep := 0; sweep < 60; sweep++ {
		var off float64
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				off += a[i][j] * a[i][j]
			}
		}
		if off < 1e-22 {
			break
		}
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				if math.Abs(a[p][q]) < 1e-300 {
					continue
				}
				theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
				t := 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				if theta < 0 {
					t = -t
				}
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := 0; k < n; k++ {
					akp, akq := a[k][p], a[k][q]
					a[k][p], a[k][q] = c*akp-s*akq, s*akp+c*akq
				}
				for k := 0; k < n; k++ {
					apk, aqk := a[p][k], a[q][k]
					a[p][k], a[q][k] = c*apk-s*aqk, s*apk+c*aqk
				}
				for k := 0; k < n; k++ {
					vkp, vkq := v[k][p], v[k][q]
					v[k][p], v[k][q] = c*vkp-s*vkq, s*vkp+c*vkq
				}
			}
		}
	}
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = a[i][i]
	}
	return vals, v
}
