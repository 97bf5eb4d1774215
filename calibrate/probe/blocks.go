package probe

import (
	"encoding/binary"
	"math"
)

// GGUF block formats, byte for byte as ggml stores them
// (ggml/src/ggml-common.h): every block holds 32 consecutive weights of a
// row and starts with its scale d as an IEEE half, little-endian.
//
//	Q4_0: d (2 bytes), qs[16]: byte j holds weight j in its low nibble and
//	      weight j+16 in its high nibble; weight = (nibble − 8) · d.
//	Q8_0: d (2 bytes), qs[32] int8; weight = q · d.
const (
	BlockSize   = 32 // weights per Q4_0 or Q8_0 block
	Q4_0Bytes   = 18 // bytes per Q4_0 block
	Q8_0Bytes   = 34 // bytes per Q8_0 block
	halfBytes   = 2
	q4NibbleMid = 8
)

// halfToFloat is every IEEE half's float32 value, indexed by its bits, as
// ggml's CPU backend converts scales: one load instead of bit twiddling.
var halfToFloat = func() *[1 << 16]float32 {
	var t [1 << 16]float32
	for i := range t {
		t[i] = halfBitsToFloat32(uint16(i))
	}
	return &t
}()

// halfBitsToFloat32 decodes an IEEE 754 binary16.
func halfBitsToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // inf, NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: frac · 2^-24
		v := float32(frac) * (1.0 / (1 << 24))
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
}

// Half converts a half's bits to float32.
func Half(h uint16) float32 { return halfToFloat[h] }

// ToHalf rounds f to the nearest IEEE half (ties to even), as ggml's
// GGML_FP32_TO_FP16; overflow gives ±inf.
func ToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	frac := b & 0x7fffff
	if exp == 0xff {
		if frac != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		if e < -10 {
			return sign
		}
		// Subnormal: shift the full significand into place, round.
		m := frac | 0x800000
		shift := uint32(14 - e)
		half := uint32(1) << (shift - 1)
		r := m >> shift
		rem := m & (1<<shift - 1)
		if rem > half || rem == half && r&1 == 1 {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(e)<<10 | frac>>13
	rem := frac & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && r&1 == 1 {
		r++ // may carry into the exponent, up to inf: still correct
	}
	return sign | uint16(r)
}

// QuantizeQ8_0 stores x (a whole number of blocks) as Q8_0 blocks in dst,
// as ggml's quantize_row_q8_0_ref: d = max|x|/127, q = round(x/d) away
// from zero. dst must hold len(x)/32·34 bytes.
func QuantizeQ8_0(dst []byte, x []float32) {
	for b := 0; b < len(x)/BlockSize; b++ {
		xs := x[b*BlockSize : (b+1)*BlockSize]
		blk := dst[b*Q8_0Bytes : (b+1)*Q8_0Bytes]
		var amax float32
		for _, v := range xs {
			amax = max(amax, abs32(v))
		}
		d := amax / 127
		var id float32
		if d != 0 {
			id = 1 / d
		}
		binary.LittleEndian.PutUint16(blk, ToHalf(d))
		for j, v := range xs {
			blk[halfBytes+j] = byte(int8(roundAway(v * id)))
		}
	}
}

// QuantizeQ4_0 stores x (a whole number of blocks) as Q4_0 blocks, as
// ggml's quantize_row_q4_0_ref: d = m/−8 with m the value of largest
// magnitude, nibble = min(15, trunc(x/d + 8.5)).
func QuantizeQ4_0(dst []byte, x []float32) {
	for b := 0; b < len(x)/BlockSize; b++ {
		xs := x[b*BlockSize : (b+1)*BlockSize]
		blk := dst[b*Q4_0Bytes : (b+1)*Q4_0Bytes]
		var amax, m float32
		for _, v := range xs {
			if abs32(v) > amax {
				amax, m = abs32(v), v
			}
		}
		d := m / -8
		var id float32
		if d != 0 {
			id = 1 / d
		}
		binary.LittleEndian.PutUint16(blk, ToHalf(d))
		for j := 0; j < BlockSize/2; j++ {
			lo := min(15, int8(xs[j]*id+8.5))
			hi := min(15, int8(xs[j+BlockSize/2]*id+8.5))
			blk[halfBytes+j] = byte(lo) | byte(hi)<<4
		}
	}
}

// DequantizeQ4_0 decodes Q4_0 blocks into dst (32 weights a block).
func DequantizeQ4_0(dst []float32, src []byte) {
	for b := 0; b < len(dst)/BlockSize; b++ {
		blk := src[b*Q4_0Bytes : (b+1)*Q4_0Bytes]
		d := Half(binary.LittleEndian.Uint16(blk))
		out := dst[b*BlockSize : (b+1)*BlockSize]
		for j := 0; j < BlockSize/2; j++ {
			q := blk[halfBytes+j]
			out[j] = float32(int(q&0xf)-q4NibbleMid) * d
			out[j+BlockSize/2] = float32(int(q>>4)-q4NibbleMid) * d
		}
	}
}

// DequantizeQ8_0 decodes Q8_0 blocks into dst (32 weights a block).
func DequantizeQ8_0(dst []float32, src []byte) {
	for b := 0; b < len(dst)/BlockSize; b++ {
		blk := src[b*Q8_0Bytes : (b+1)*Q8_0Bytes]
		d := Half(binary.LittleEndian.Uint16(blk))
		for j := range BlockSize {
			dst[b*BlockSize+j] = float32(int8(blk[halfBytes+j])) * d
		}
	}
}

// nibbles holds, for each Q4_0 byte, its two weights' codes minus 8: the
// low nibble's (element j) and the high nibble's (element j+16).
var nibbles = func() *[256][2]int32 {
	var t [256][2]int32
	for q := range t {
		t[q] = [2]int32{int32(q&0xf) - q4NibbleMid, int32(q>>4) - q4NibbleMid}
	}
	return &t
}()

// DotQ4_0Q8_0 is the dot product of a Q4_0 row and a Q8_0 row of the same
// length, as ggml's ggml_vec_dot_q4_0_q8_0: an integer sum per block,
// scaled by both blocks' d, accumulated in float32.
func DotQ4_0Q8_0(w, a []byte) float32 {
	var sum float32
	nb := len(w) / Q4_0Bytes
	a = a[:nb*Q8_0Bytes]
	lut := nibbles
	for b := range nb {
		wb := (*[Q4_0Bytes]byte)(w[b*Q4_0Bytes:])
		ab := (*[Q8_0Bytes]byte)(a[b*Q8_0Bytes:])
		var s0, s1 int32
		for j := 0; j < 16; j += 2 {
			n0, n1 := &lut[wb[2+j]], &lut[wb[3+j]]
			s0 += n0[0]*int32(int8(ab[2+j])) + n1[0]*int32(int8(ab[3+j]))
			s1 += n0[1]*int32(int8(ab[18+j])) + n1[1]*int32(int8(ab[19+j]))
		}
		d := halfToFloat[uint16(wb[0])|uint16(wb[1])<<8] * halfToFloat[uint16(ab[0])|uint16(ab[1])<<8]
		sum += float32(s0+s1) * d
	}
	return sum
}

// DotQ8_0Q8_0 is the dot product of two Q8_0 rows, as ggml's
// ggml_vec_dot_q8_0_q8_0.
func DotQ8_0Q8_0(w, a []byte) float32 {
	var sum float32
	nb := len(w) / Q8_0Bytes
	a = a[:nb*Q8_0Bytes]
	for b := range nb {
		wb := (*[Q8_0Bytes]byte)(w[b*Q8_0Bytes:])
		ab := (*[Q8_0Bytes]byte)(a[b*Q8_0Bytes:])
		var s0, s1 int32
		for j := 2; j < Q8_0Bytes; j += 4 {
			s0 += int32(int8(wb[j]))*int32(int8(ab[j])) + int32(int8(wb[j+1]))*int32(int8(ab[j+1]))
			s1 += int32(int8(wb[j+2]))*int32(int8(ab[j+2])) + int32(int8(wb[j+3]))*int32(int8(ab[j+3]))
		}
		d := halfToFloat[uint16(wb[0])|uint16(wb[1])<<8] * halfToFloat[uint16(ab[0])|uint16(ab[1])<<8]
		sum += float32(s0+s1) * d
	}
	return sum
}

// DotF16 is the dot product of two rows of halves, each converted to
// float32 and accumulated in float32, as ggml's scalar ggml_vec_dot_f16.
func DotF16(w, a []uint16) float32 {
	var s0, s1, s2, s3 float32
	n := len(w)
	a = a[:n]
	j := 0
	for ; j+4 <= n; j += 4 {
		s0 += halfToFloat[w[j]] * halfToFloat[a[j]]
		s1 += halfToFloat[w[j+1]] * halfToFloat[a[j+1]]
		s2 += halfToFloat[w[j+2]] * halfToFloat[a[j+2]]
		s3 += halfToFloat[w[j+3]] * halfToFloat[a[j+3]]
	}
	for ; j < n; j++ {
		s0 += halfToFloat[w[j]] * halfToFloat[a[j]]
	}
	return (s0 + s1) + (s2 + s3)
}

func abs32(f float32) float32 { return math.Float32frombits(math.Float32bits(f) &^ (1 << 31)) }

// roundAway rounds half away from zero, as C's roundf.
func roundAway(f float32) float32 { return float32(math.Round(float64(f))) }
