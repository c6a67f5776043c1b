package a11y_test

import (
	"testing"

	"github.com/groundwork-go/groundwork/a11y"
)

var (
	sinkFloat  float64
	sinkBool   bool
	sinkString string
)

func BenchmarkContrastRatio(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkFloat, _ = a11y.ContrastRatio("#767676", "#FFFFFF")
	}
}

func BenchmarkCheckContrastColor(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkBool = a11y.CheckContrastColor("#767676", "#FFFFFF")
	}
}

func BenchmarkGenerateAccessibleTextColor(b *testing.B) {
	b.Run("TintUncached", func(b *testing.B) {
		s, err := a11y.NewService(&a11y.Options{CacheSize: -1})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			sinkString = s.GenerateAccessibleTextColor("#3b82f6", true)
		}
	})
	b.Run("TintCached", func(b *testing.B) {
		s, err := a11y.NewService(nil)
		if err != nil {
			b.Fatal(err)
		}
		s.GenerateAccessibleTextColor("#3b82f6", true)
		b.ReportAllocs()
		for b.Loop() {
			sinkString = s.GenerateAccessibleTextColor("#3b82f6", true)
		}
	})
	b.Run("BlackOrWhiteCached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkString = a11y.GetContrastColor("#3b82f6")
		}
	})
	b.Run("PaletteNameCached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkString = a11y.GenerateAccessibleTextColor("blue-500", true)
		}
	})
}
