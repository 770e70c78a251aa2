// Command go-classify runs a netkit model from Go with package nk: it
// classifies the first images of a .npy batch and prints each label with
// its score. Defaults: the Fashion-MNIST MLP and test images in testdata/.
//
//	go run ./examples/go-classify [MODEL.nk [IMAGES.npy [N]]]
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/netkit/netkit/nk"
	"github.com/netkit/netkit/nk/npy"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "go-classify:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	modelPath, imagesPath, n := "testdata/fashion/mlp.nk", "testdata/fashion/input.npy", 3
	if len(args) > 0 {
		modelPath = args[0]
	}
	if len(args) > 1 {
		imagesPath = args[1]
	}
	if len(args) > 2 {
		v, err := strconv.Atoi(args[2])
		if err != nil || v < 1 {
			return fmt.Errorf("N %q is not a positive count", args[2])
		}
		n = v
	}
	model, err := nk.Load(modelPath)
	if err != nil {
		return err
	}
	defer model.Close()
	images, err := npy.ReadFile(imagesPath)
	if err != nil {
		return err
	}
	pixels, err := images.F32()
	if err != nil {
		return err
	}
	per := model.Inputs()[0].Bytes() / 4
	labels := model.Labels()
	for i := 0; i < n && (i+1)*per <= len(pixels); i++ {
		scores, err := model.Predict(pixels[i*per : (i+1)*per])
		if err != nil {
			return err
		}
		best := 0
		for k, s := range scores {
			if s > scores[best] {
				best = k
			}
		}
		label := strconv.Itoa(best)
		if best < len(labels) {
			label = labels[best]
		}
		fmt.Printf("image %d: %s (%.3f)\n", i, label, scores[best])
	}
	fmt.Printf("arena %d B\n", model.ArenaBytes())
	return nil
}
