#!/usr/bin/env python3
"""Encode time of one image through the Gemma 4 E2B vision tower + projector: gemmad
(bench/vision_bench.cc) against transformers on the same machine and thread count.

    /work/venv-dev/bin/python bench/vision_vs_hf.py BUILD_DIR [--threads 2] [--budgets 70,280,1120]
                                                    [--repeats 3] [--skip-gemmad] [--skip-hf]

BUILD_DIR holds bench/bench_vision (release or relassert preset). Both sides: the real E2B tower
shape (Dv 768, 16 layers, 12 heads of 64, I 3072, use_clipped_linears), projector to Dt 1536,
float32, random weights, a 480x640 image as Gemma4ImageProcessor(patch_size=16,
pooling_kernel_size=3) sizes it at each budget (21x27, 42x57, 84x114 patches). transformers runs
Gemma4Model.get_image_features under torch.no_grad with torch.set_num_threads(T) and its default
attention (sdpa) on what its processor gives it: every image padded to budget x 9 patch rows
(630, 2520, 10080), which it attends over with a mask. gemmad runs the image's real patches only.
The two sides alternate, --repeats rounds per budget after one warm-up each, and the table shows
each side's fastest round (the least disturbed by other work on the machine) and the median
(gemmad's rounds are Google Benchmark runs: the mean of 3 iterations, 1 at budget 1120).
"""
import argparse
import time

from side_by_side import alternate, bench_seconds, print_table

GRIDS = {70: (21, 27), 280: (42, 57), 1120: (84, 114)}


class Transformers:
    """The E2B tower + projector in transformers, and its image processor per budget."""

    def __init__(self, threads):
        import numpy
        import torch
        from transformers import Gemma4Config, Gemma4ForConditionalGeneration, Gemma4TextConfig, Gemma4VisionConfig
        torch.set_num_threads(threads)
        torch.manual_seed(0)
        text = Gemma4TextConfig(vocab_size=512, hidden_size=1536, intermediate_size=64, num_hidden_layers=1,
                                num_attention_heads=2, num_key_value_heads=1, head_dim=32, global_head_dim=32,
                                layer_types=["full_attention"], hidden_size_per_layer_input=0,
                                vocab_size_per_layer_input=0)
        vision = Gemma4VisionConfig(use_clipped_linears=True)  # the defaults are the E2B tower
        self.model = Gemma4ForConditionalGeneration(Gemma4Config(text_config=text, vision_config=vision,
                                                                 audio_config=None)).eval()
        with torch.no_grad():
            for name, t in self.model.model.vision_tower.named_parameters():
                if name.endswith("position_embedding_table"):
                    t.normal_(0, 0.5)
        self.image = (numpy.random.default_rng(0).random((480, 640, 3)) * 255).astype(numpy.uint8)
        self.torch = torch

    def batch(self, budget):
        from transformers import Gemma4ImageProcessor
        proc = Gemma4ImageProcessor(patch_size=16, pooling_kernel_size=3, max_soft_tokens=budget)
        b = proc(images=[self.image], return_tensors="pt")
        real = int((b["image_position_ids"][0] != -1).all(dim=-1).sum())
        assert real == GRIDS[budget][0] * GRIDS[budget][1], (budget, real)
        return b

    def time(self, batch):
        with self.torch.no_grad():
            t0 = time.perf_counter()
            self.model.model.get_image_features(batch["pixel_values"], batch["image_position_ids"])
            return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build_dir")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--budgets", default="70,280,1120")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-gemmad", action="store_true")
    ap.add_argument("--skip-hf", action="store_true")
    args = ap.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    hf = None if args.skip_hf else Transformers(args.threads)
    batches = {b: hf.batch(b) for b in budgets} if hf else {}
    rows = alternate(budgets, args.repeats, None if args.skip_gemmad else lambda b: bench_seconds(args.build_dir, "bench_vision", args.threads, f"budget:{b}/"),
                     (lambda b: hf.time(batches[b])) if hf else None, lambda b: f"budget {b}")
    print_table(rows, [("budget", 6, str), ("patches", 8, lambda b: str(GRIDS[b][0] * GRIDS[b][1]))], "image",
                args.repeats, args.threads)

if __name__ == "__main__":
    main()
