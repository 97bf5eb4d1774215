// Command pixelcheck fails when a screenshot is blank: when almost every
// pixel has the page's background colour. scripts/browser-check runs it
// on Chromium's screenshots of a report.
//
//	go run ./scripts/pixelcheck [-min-ink 0.01] SHOT.png...
//
// The background is the most common colour; a pixel is ink when any of
// its channels differs from it by more than 16 of 255. A page whose
// figures failed to load keeps its text, so the check is run on a copy
// of the page holding only the figures.
package main

import (
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
)

func main() {
	minInk := flag.Float64("min-ink", 0.01, "the least share of pixels that must differ from the background")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: pixelcheck [-min-ink 0.01] SHOT.png...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	failed := false
	for _, name := range flag.Args() {
		ink, w, h, err := inkFile(name)
		switch {
		case err != nil:
			fmt.Fprintf(os.Stderr, "pixelcheck: %s: %v\n", name, err)
			failed = true
		case ink < *minInk:
			fmt.Fprintf(os.Stderr, "pixelcheck: %s is blank: %d×%d px, %.2f%% differ from the background (want at least %.2f%%)\n", name, w, h, 100*ink, 100**minInk)
			failed = true
		default:
			fmt.Printf("pixelcheck: %s: %d×%d px, %.1f%% ink\n", name, w, h, 100*ink)
		}
	}
	if failed {
		os.Exit(1)
	}
}

func inkFile(name string) (ink float64, w, h int, err error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, 0, 0, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("not a PNG: %v", err)
	}
	b := img.Bounds()
	return Ink(img), b.Dx(), b.Dy(), nil
}

// Ink is the share of img's pixels that differ from its most common
// colour by more than 16 of 255 in some channel; 0 for an empty image.
func Ink(img image.Image) float64 {
	b := img.Bounds()
	n := b.Dx() * b.Dy()
	if n == 0 {
		return 0
	}
	type rgb struct{ r, g, b uint8 }
	at := func(x, y int) rgb {
		r, g, bl, _ := img.At(x, y).RGBA()
		return rgb{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8)}
	}
	counts := map[rgb]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			counts[at(x, y)]++
		}
	}
	var bg rgb
	best := -1
	for c, k := range counts {
		if k > best || (k == best && (c.r+c.g+c.b) > (bg.r+bg.g+bg.b)) {
			bg, best = c, k
		}
	}
	far := func(a, b uint8) bool { return int(a)-int(b) > 16 || int(b)-int(a) > 16 }
	inked := 0
	for c, k := range counts {
		if far(c.r, bg.r) || far(c.g, bg.g) || far(c.b, bg.b) {
			inked += k
		}
	}
	return float64(inked) / float64(n)
}
