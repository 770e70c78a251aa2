// Package int8ref is a second, independent implementation of netkit's int8
// operator semantics, written in Go from the spec (docs/INT8.md): the
// oracle the C kernels are tested against. It favours plain, checkable
// arithmetic over speed: products and sums in int64, rounding written as
// division with remainders.
//
// Every op follows TensorFlow Lite's int8 reference (and so CMSIS-NN):
// input offsets are -zero_point, accumulators are int32, requantization is
// a Q0.31 multiplier and shift in the chosen rounding mode, then the output
// zero point is added and the result clamped to the activation range.
package int8ref

import (
	"math"
	"math/bits"

	"github.com/netkit/netkit/internal/quant"
)

// wrap32 reduces v to int32 two's complement, like a 32-bit register.
func wrap32(v int64) int32 { return int32(uint32(uint64(v))) }

// SRDHM is the saturating rounding doubling high multiply: a*b/2^31
// rounded half up (toward +inf), with the single overflow
// (-1.0 * -1.0 in Q0.31) saturating to MaxInt32.
func SRDHM(a, b int32) int32 {
	if a == math.MinInt32 && b == math.MinInt32 {
		return math.MaxInt32
	}
	p := int64(a) * int64(b)
	return int32(floorDiv(p+1<<30, 1<<31))
}

// floorDiv is floor(n/d) for d > 0.
func floorDiv(n, d int64) int64 {
	q := n / d
	if n%d != 0 && n < 0 {
		q--
	}
	return q
}

// RoundingDivideByPOT is x / 2^e, e in [0, 31], rounded to nearest with
// ties away from zero.
func RoundingDivideByPOT(x int32, e int) int32 {
	d := int64(1) << e
	q, r := int64(x)/d, int64(x)%d // truncating: r carries x's sign
	if 2*abs64(r) >= d && d > 1 {
		if x < 0 {
			q--
		} else {
			q++
		}
	}
	return int32(q)
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// SaturatingShiftLeft is x * 2^e, e in [0, 31], saturated to int32.
func SaturatingShiftLeft(x int32, e int) int32 {
	v := int64(x) << e
	switch {
	case v > math.MaxInt32:
		return math.MaxInt32
	case v < math.MinInt32:
		return math.MinInt32
	}
	return int32(v)
}

// Requantize multiplies x by m.M * 2^(m.Shift-31) with the rounding of
// mode r (TFLite MultiplyByQuantizedMultiplier).
func Requantize(x int32, m quant.Multiplier, r quant.Rounding) int32 {
	if r == quant.SingleRounding {
		total := 31 - int(m.Shift)
		return wrap32(floorDiv(int64(x)*int64(m.M)+int64(1)<<(total-1), int64(1)<<total))
	}
	left, right := 0, 0
	if m.Shift > 0 {
		left = int(m.Shift)
	} else {
		right = int(-m.Shift)
	}
	// the left shift is an int32 multiply: it wraps on overflow
	return RoundingDivideByPOT(SRDHM(wrap32(int64(x)<<left), m.M), right)
}

// Fixed-point constants (Q0.31 unless noted).
const (
	expMinusOneEighth          = 1895147668  // exp(-1/8)
	oneThird                   = 715827883   // 1/3
	fortyEightSeventeenths     = 1515870810  // 48/17 in Q2.29
	minusThirtyTwoSeventeenths = -1010580540 // -32/17 in Q2.29
	oneQ2                      = 1 << 29     // 1.0 in Q2.29
)

// expBarrel[k] is exp(-2^(k-2)) in Q0.31, k = 0..6.
var expBarrel = [7]int32{1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242}

// expOnQuarter is exp(a) for a in [-1/4, 0) (Q0.31): a fourth-order Taylor
// expansion around -1/8 with x = a + 1/8:
// exp(-1/8) * (1 + x + x^2/2 + x^3/6 + x^4/24).
func expOnQuarter(a int32) int32 {
	x := wrap32(int64(a) + 1<<28)
	x2 := SRDHM(x, x)
	x3 := SRDHM(x2, x)
	x4 := SRDHM(x2, x2)
	// ((x^4/4 + x^3) / 3 + x^2) / 2 = x^4/24 + x^3/6 + x^2/2
	inner := wrap32(int64(RoundingDivideByPOT(x4, 2)) + int64(x3))
	poly := RoundingDivideByPOT(wrap32(int64(SRDHM(inner, oneThird))+int64(x2)), 1)
	return wrap32(expMinusOneEighth + int64(SRDHM(expMinusOneEighth, wrap32(int64(x)+int64(poly)))))
}

// ExpOnNegativeValues is exp(a) for a <= 0 given with intBits integer bits
// (Q intBits . 31-intBits), intBits in [0, 6]; the result is Q0.31 and
// exp(0) is MaxInt32. a is split into a multiple of 1/4 and a remainder in
// [-1/4, 0); the multiple's bits select factors exp(-1/4), exp(-1/2), ...
func ExpOnNegativeValues(a int32, intBits int) int32 {
	frac := 31 - intBits
	quarter := int64(1) << (frac - 2)
	// a mod 1/4 (in [0, 1/4)) minus 1/4
	rem := wrap32((int64(a) & (quarter - 1)) - quarter)
	r := expOnQuarter(SaturatingShiftLeft(rem, intBits))
	multiple := wrap32(int64(rem) - int64(a)) // >= 0: how many quarters were cut off
	for k, factor := range expBarrel {
		exponent := k - 2 // factor = exp(-2^exponent)
		if intBits <= exponent {
			break // a cannot hold 2^exponent
		}
		if multiple&(1<<(frac+exponent)) != 0 {
			r = SRDHM(r, factor)
		}
	}
	if intBits > 5 && int64(a) < -(int64(1)<<(36-intBits)) { // below -32
		r = 0
	}
	if a == 0 {
		r = math.MaxInt32
	}
	return r
}

// reciprocalQ2 runs three Newton-Raphson steps for 1/d, d = (1+a)/2 in
// [1/2, 1), returning Q2.29.
func reciprocalQ2(a int32) int32 {
	sum := int64(a) + math.MaxInt32
	var d int32
	if sum >= 0 {
		d = int32((sum + 1) / 2)
	} else {
		d = int32((sum - 1) / 2)
	}
	x := wrap32(fortyEightSeventeenths + int64(SRDHM(d, minusThirtyTwoSeventeenths)))
	for i := 0; i < 3; i++ {
		e := wrap32(oneQ2 - int64(SRDHM(d, x)))                           // 1 - d*x, Q2.29
		x = wrap32(int64(x) + int64(SaturatingShiftLeft(SRDHM(x, e), 2))) // Q4.27 -> Q2.29
	}
	return x
}

// OneOverOnePlusX is 1/(1+a) for a in [0, 1), Q0.31 in and out.
func OneOverOnePlusX(a int32) int32 {
	return SaturatingShiftLeft(reciprocalQ2(a), 1)
}

// OneMinusXOverOnePlusX is (1-a)/(1+a) for a in [0, 1), Q0.31 in and out.
func OneMinusXOverOnePlusX(a int32) int32 {
	return SaturatingShiftLeft(wrap32(int64(reciprocalQ2(a))-oneQ2), 2)
}

// LogisticQ4 is 1/(1+exp(-a)) of a Q4.27 value, in Q0.31.
func LogisticQ4(a int32) int32 {
	switch {
	case a == 0:
		return 1 << 30
	case a > 0:
		return OneOverOnePlusX(ExpOnNegativeValues(wrap32(-int64(a)), 4))
	default:
		// logistic(a) = 1 - logistic(-a), with 1.0 as MaxInt32
		pos := OneOverOnePlusX(ExpOnNegativeValues(a, 4))
		return wrap32(math.MaxInt32 - int64(pos))
	}
}

// TanhQ4 is tanh of a Q4.27 value, in Q0.31: (1-e)/(1+e) with
// e = exp(-2|a|), where reading the raw -|a| with 5 integer bits doubles it.
func TanhQ4(a int32) int32 {
	if a == 0 {
		return 0
	}
	negAbs := a
	if a > 0 {
		negAbs = wrap32(-int64(a))
	}
	t := OneMinusXOverOnePlusX(ExpOnNegativeValues(negAbs, 5))
	if a < 0 {
		return wrap32(-int64(t))
	}
	return t
}

// clz32 counts leading zero bits.
func clz32(v int32) int { return bits.LeadingZeros32(uint32(v)) }
