package main

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func filled(w, h int, bg color.Color) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, bg)
		}
	}
	return img
}

// TestInk: a white page is blank; a quarter painted black is 25% ink
// whatever the background; a shade within 16 of the background is not
// ink (JPEG-like noise, anti-aliased borders of nothing).
func TestInk(t *testing.T) {
	white := filled(100, 100, color.White)
	if got := Ink(white); got != 0 {
		t.Errorf("a white page has %v ink, want 0", got)
	}
	quarter := filled(100, 100, color.RGBA{30, 30, 60, 255})
	for y := range 50 {
		for x := range 50 {
			quarter.Set(x, y, color.White)
		}
	}
	if got := Ink(quarter); got != 0.25 {
		t.Errorf("a quarter of white on navy is %v ink, want 0.25", got)
	}
	faint := filled(10, 10, color.White)
	faint.Set(0, 0, color.RGBA{240, 240, 240, 255})
	faint.Set(1, 0, color.RGBA{200, 240, 240, 255})
	if got := Ink(faint); got != 0.01 {
		t.Errorf("one far and one faint pixel in 100: %v ink, want 0.01", got)
	}
	if got := Ink(image.NewRGBA(image.Rect(0, 0, 0, 0))); got != 0 {
		t.Errorf("an empty image: %v", got)
	}
}

func TestInkFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shot.png")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	img := filled(20, 10, color.White)
	img.Set(3, 3, color.Black)
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ink, w, h, err := inkFile(path)
	if err != nil || w != 20 || h != 10 || ink != 1.0/200 {
		t.Errorf("inkFile: %v %d×%d %v", ink, w, h, err)
	}
	if _, _, _, err := inkFile(filepath.Join(t.TempDir(), "missing.png")); err == nil {
		t.Error("no error for a missing file")
	}
	os.WriteFile(path, []byte("not a png"), 0o644)
	if _, _, _, err := inkFile(path); err == nil {
		t.Error("no error for a file that is not a PNG")
	}
}
