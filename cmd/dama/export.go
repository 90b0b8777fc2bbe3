package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"dama/checkpoints"
	"dama/model/export"
	"dama/player"
)

func init() {
	var ckpt, format, out *string
	register(&command{
		name:    "export",
		summary: "export a network as an ONNX model or a JSON file of folded weights",
		usage:   "--out FILE [--model CKPT|DIR|shipped] [--format onnx|json]",
		flags: func(fs *flagSet) {
			ckpt = fs.String("model", player.Shipped, `checkpoint file to export, a run folder (its best model), or "shipped": the model shipped in the binary`)
			format = fs.String("format", "onnx", "onnx (ONNX opset 13, any runtime) or json (plain weights for engine authors)")
			out = fs.String("out", "", "output file")
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error {
			if *out == "" {
				return fmt.Errorf("--out is required")
			}
			if *format != "onnx" && *format != "json" {
				return fmt.Errorf("--format %q: want onnx or json", *format)
			}
			switch *ckpt {
			case "random":
				return fmt.Errorf(`--model random is a uniform evaluator with no network to export; give a checkpoint file, a run folder or "shipped"`)
			case "":
				*ckpt = player.Shipped
			}
			ck, err := player.LoadModel(*ckpt)
			if err != nil {
				return err
			}
			source := filepath.Base(*ckpt)
			if *ckpt == player.Shipped {
				source = checkpoints.ModelFile // as dama ship names it in dama.onnx
			}
			if err := export.SaveCheckpoint(*out, *format, ck, source, buildVersion()); err != nil {
				return err
			}
			st, err := os.Stat(*out)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "wrote %s: %s, %s, step %d, %d bytes\n", *out, *format, ck.Net.Config, ck.Step, st.Size())
			return nil
		},
	})
}
