// Package nkimage turns an image into a model input tensor: it resizes the
// image to the input's height and width (bilinear), takes its gray or RGB
// channels as the input asks, lays the values out as the input's layout
// (NHWC, or NCHW for an input whose source layout is NCHW) and scales the
// pixels by the model's preprocessing, the metadata that `netkit convert
// --mean --std --scale` records. It is pure Go (no cgo), for package nk,
// package nkc and the netkit CLI alike.
//
// Pixels p are 0..255. With preprocessing, an input value is
// (p*Scale - Mean[c]) / Std[c]; without, a float input takes p/255 (the
// [0, 1] range) and an int8 input p-128 (its whole range). An int8 input
// with preprocessing is quantized with its own scale and zero point.
package nkimage

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // decoders for ReadFile
	_ "image/png"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/netkit/netkit/internal/quant"
)

// The metadata keys of the preprocessing in a .nk file.
const (
	MetaScale = "image.scale" // one float: the factor of p
	MetaMean  = "image.mean"  // one float, or one per channel, comma-separated
	MetaStd   = "image.std"   // as MetaMean
)

// Preprocess is how pixels become input values: (p*Scale - Mean[c]) / Std[c].
// Mean and Std hold one value for every channel or one per channel.
type Preprocess struct {
	Scale     float32
	Mean, Std []float32
}

// ParsePreprocess reads the flag or metadata text of the three values;
// empty mean and std mean 0 and 1, an empty scale 1/255.
func ParsePreprocess(scale, mean, std string) (*Preprocess, error) {
	p := &Preprocess{Scale: 1.0 / 255, Mean: []float32{0}, Std: []float32{1}}
	if scale != "" {
		v, err := strconv.ParseFloat(strings.TrimSpace(scale), 32)
		if err != nil || v <= 0 || math.IsInf(v, 0) {
			return nil, fmt.Errorf("scale %q: want a positive number", scale)
		}
		p.Scale = float32(v)
	}
	var err error
	if mean != "" {
		if p.Mean, err = floats("mean", mean, false); err != nil {
			return nil, err
		}
	}
	if std != "" {
		if p.Std, err = floats("std", std, true); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func floats(what, s string, positive bool) ([]float32, error) {
	var out []float32
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 32)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) || (positive && v <= 0) {
			return nil, fmt.Errorf("%s %q: want numbers separated by commas%s", what, s,
				map[bool]string{true: ", each positive"}[positive])
		}
		out = append(out, float32(v))
	}
	return out, nil
}

// FromMeta reads the preprocessing a model records; nil when it records none.
func FromMeta(meta func(key string) (string, bool)) (*Preprocess, error) {
	scale, okScale := meta(MetaScale)
	mean, okMean := meta(MetaMean)
	std, okStd := meta(MetaStd)
	if !okScale && !okMean && !okStd {
		return nil, nil
	}
	p, err := ParsePreprocess(scale, mean, std)
	if err != nil {
		return nil, fmt.Errorf("the model's image preprocessing: %w", err)
	}
	return p, nil
}

// Meta returns the metadata keys and values that record p.
func (p *Preprocess) Meta() [][2]string {
	join := func(v []float32) string {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = strconv.FormatFloat(float64(x), 'g', -1, 32)
		}
		return strings.Join(s, ",")
	}
	return [][2]string{
		{MetaScale, strconv.FormatFloat(float64(p.Scale), 'g', -1, 32)},
		{MetaMean, join(p.Mean)}, {MetaStd, join(p.Std)},
	}
}

func (p *Preprocess) String() string {
	m := p.Meta()
	return fmt.Sprintf("(p * %s - mean) / std with mean %s, std %s", m[0][1], m[1][1], m[2][1])
}

// Input is what Tensor needs to know of the model input.
type Input struct {
	Name  string
	Shape []int // [1, H, W, C] or [H, W, C]; with NCHW, [1, C, H, W] or [C, H, W]
	NCHW  bool  // the input's source layout is NCHW
	Int8  bool  // an int8 input (else float32)
	// Quantization of an int8 input: real = Scale * (q - ZeroPoint).
	Scale     float32
	ZeroPoint int32
}

// Tensor converts img to in's bytes (float32 or int8, little-endian) and
// says which scaling rule it used. pre is the model's preprocessing, nil
// when it records none.
func Tensor(img image.Image, in Input, pre *Preprocess) ([]byte, string, error) {
	h, w, c, err := geometry(in)
	if err != nil {
		return nil, "", err
	}
	if c != 1 && c != 3 {
		return nil, "", fmt.Errorf("input %q %v has %d channels; an image gives 1 (gray) or 3 (RGB)", in.Name, in.Shape, c)
	}
	if pre != nil {
		for _, v := range [][]float32{pre.Mean, pre.Std} {
			if len(v) != 1 && len(v) != c {
				return nil, "", fmt.Errorf("the preprocessing has %d means and %d stds, input %q has %d channels",
					len(pre.Mean), len(pre.Std), in.Name, c)
			}
		}
	}
	if in.Int8 && pre != nil && in.Scale <= 0 {
		return nil, "", fmt.Errorf("input %q is int8 without a quantization scale", in.Name)
	}
	b := img.Bounds()
	if b.Empty() {
		return nil, "", errors.New("the image is empty")
	}
	pix := resize(img, w, h, c) // h*w*c values 0..255, HWC
	size := 4
	if in.Int8 {
		size = 1
	}
	out := make([]byte, len(pix)*size)
	for y := range h {
		for x := range w {
			for k := range c {
				p := pix[(y*w+x)*c+k]
				i := (y*w+x)*c + k // NHWC
				if in.NCHW {
					i = (k*h+y)*w + x
				}
				switch {
				case in.Int8 && pre == nil:
					out[i] = byte(int8(math.Round(float64(p)) - 128))
				case in.Int8:
					out[i] = byte(quant.QuantizeI8(pre.value(p, k), in.Scale, in.ZeroPoint))
				case pre == nil:
					binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(p/255))
				default:
					binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(pre.value(p, k)))
				}
			}
		}
	}
	resized := ""
	if b.Dx() != w || b.Dy() != h {
		resized = fmt.Sprintf(", resized %dx%d -> %dx%d (bilinear)", b.Dx(), b.Dy(), w, h)
	}
	var rule string
	switch {
	case pre != nil && in.Int8:
		rule = fmt.Sprintf("%s, quantized with scale %g, zero point %d (the model's preprocessing)", pre, in.Scale, in.ZeroPoint)
	case pre != nil:
		rule = pre.String() + " (the model's preprocessing)"
	case in.Int8:
		rule = "p - 128, the int8 range (the model records no preprocessing; convert with --mean/--std/--scale)"
	default:
		rule = "p / 255, the range [0, 1] (the model records no preprocessing; convert with --mean/--std/--scale)"
	}
	gray := map[int]string{1: "gray", 3: "RGB"}[c]
	return out, fmt.Sprintf("pixels p in 0..255 as %s%s: %s", gray, resized, rule), nil
}

// value is the preprocessed real value of pixel p of channel k.
func (pre *Preprocess) value(p float32, k int) float32 {
	pick := func(v []float32) float32 {
		if len(v) == 1 {
			return v[0]
		}
		return v[k]
	}
	return (p*pre.Scale - pick(pre.Mean)) / pick(pre.Std)
}

// geometry reads height, width and channels from the input's shape.
func geometry(in Input) (h, w, c int, err error) {
	s := in.Shape
	if len(s) == 4 {
		if s[0] != 1 {
			return 0, 0, 0, fmt.Errorf("input %q %v: batch %d, an image fills a batch of 1", in.Name, s, s[0])
		}
		s = s[1:]
	}
	if len(s) != 3 {
		return 0, 0, 0, fmt.Errorf("input %q %v is not an image (want [1 H W C], or [1 C H W] for an NCHW input)", in.Name, in.Shape)
	}
	if in.NCHW {
		return s[1], s[2], s[0], nil
	}
	return s[0], s[1], s[2], nil
}

// resize samples img at w x h pixel centers (bilinear, edges clamped) and
// returns HWC values 0..255: gray for c == 1 (ITU-R 601 luma), else RGB.
func resize(img image.Image, w, h, c int) []float32 {
	b := img.Bounds()
	sw, sh := b.Dx(), b.Dy()
	// the source as float channels, once
	src := make([]float32, sw*sh*3)
	for y := range sh {
		for x := range sw {
			r, g, bl, _ := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).RGBA()
			i := (y*sw + x) * 3
			src[i], src[i+1], src[i+2] = float32(r>>8), float32(g>>8), float32(bl>>8)
		}
	}
	at := func(x, y, k int) float32 { return src[(y*sw+x)*3+k] }
	out := make([]float32, w*h*c)
	for y := range h {
		fy := max(0, min(float32(sh-1), (float32(y)+0.5)*float32(sh)/float32(h)-0.5))
		y0 := int(fy)
		y1, dy := min(y0+1, sh-1), fy-float32(y0)
		for x := range w {
			fx := max(0, min(float32(sw-1), (float32(x)+0.5)*float32(sw)/float32(w)-0.5))
			x0 := int(fx)
			x1, dx := min(x0+1, sw-1), fx-float32(x0)
			var rgb [3]float32
			for k := range 3 {
				top := at(x0, y0, k)*(1-dx) + at(x1, y0, k)*dx
				bot := at(x0, y1, k)*(1-dx) + at(x1, y1, k)*dx
				rgb[k] = top*(1-dy) + bot*dy
			}
			if c == 1 {
				out[y*w+x] = 0.299*rgb[0] + 0.587*rgb[1] + 0.114*rgb[2]
			} else {
				copy(out[(y*w+x)*3:], rgb[:])
			}
		}
	}
	return out
}

// ReadFile decodes a PNG, JPEG or PGM (P2 or P5, 8-bit) image, told by content.
func ReadFile(path string) (image.Image, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) >= 2 && (string(b[:2]) == "P5" || string(b[:2]) == "P2") {
		img, err := decodePGM(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return img, nil
	}
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: not a PNG, JPEG or PGM image: %w", path, err)
	}
	return img, nil
}

// decodePGM reads a binary (P5) or plain (P2) graymap of maxval up to 255.
func decodePGM(b []byte) (image.Image, error) {
	r := bufio.NewReader(bytes.NewReader(b))
	word := func() (int, error) {
		var s []byte
		for {
			c, err := r.ReadByte()
			if err == io.EOF && len(s) > 0 {
				break
			}
			if err != nil {
				return 0, errors.New("pgm: truncated header")
			}
			if c == '#' && len(s) == 0 {
				if _, err := r.ReadString('\n'); err != nil {
					return 0, errors.New("pgm: truncated header")
				}
				continue
			}
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				if len(s) > 0 {
					break
				}
				continue
			}
			s = append(s, c)
		}
		v, err := strconv.Atoi(string(s))
		if err != nil || v < 0 {
			return 0, fmt.Errorf("pgm: bad number %q", s)
		}
		return v, nil
	}
	magic := make([]byte, 2)
	if _, err := io.ReadFull(r, magic); err != nil {
		return nil, err
	}
	w, err := word()
	if err != nil {
		return nil, err
	}
	h, err := word()
	if err != nil {
		return nil, err
	}
	maxv, err := word()
	if err != nil {
		return nil, err
	}
	if w == 0 || h == 0 || w > 1<<14 || h > 1<<14 || maxv == 0 || maxv > 255 {
		return nil, fmt.Errorf("pgm: %dx%d with maxval %d: want at most 16384x16384, maxval 1..255", w, h, maxv)
	}
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		var v int
		if string(magic) == "P5" {
			c, err := r.ReadByte()
			if err != nil {
				return nil, fmt.Errorf("pgm: %d of %d pixels", i, w*h)
			}
			v = int(c)
		} else if v, err = word(); err != nil {
			return nil, fmt.Errorf("pgm: %d of %d pixels", i, w*h)
		}
		if v > maxv {
			return nil, fmt.Errorf("pgm: pixel %d is %d, above maxval %d", i, v, maxv)
		}
		img.Pix[i] = uint8((v*255 + maxv/2) / maxv)
	}
	return img, nil
}

// IsImageFile reports whether path names an image by its extension, the
// way the CLI picks an --input's reader.
func IsImageFile(path string) bool {
	i := strings.LastIndexByte(path, '.')
	if i < 0 {
		return false
	}
	switch strings.ToLower(path[i:]) {
	case ".png", ".jpg", ".jpeg", ".pgm":
		return true
	}
	return false
}
