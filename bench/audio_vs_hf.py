#!/usr/bin/env python3
"""Encode time of one clip through the Gemma 4 E2B audio tower + projector: gemmad
(bench/audio_bench.cc) against transformers on the same machine and thread count.

    /work/venv-dev/bin/python bench/audio_vs_hf.py BUILD_DIR [--threads 2] [--seconds 10,30]
                                                   [--repeats 3] [--skip-gemmad] [--skip-hf] [--features]

BUILD_DIR holds bench/bench_audio (release or relassert preset). Both sides: the real E2B audio
tower shape (Da 1024, 12 conformer blocks, 8 heads of 128, SSCP channels [128, 32], chunk 12 /
left 13 / right 0, cap 50, use_clipped_linears, output_proj 1536), projector to Dt 1536, float32,
random weights, a clip of S seconds as F = 100·S − 1 log-mel frames of 128 mels (what the feature
extractor gives for S·16000 samples; the features themselves are not timed). transformers runs
Gemma4Model.get_audio_features (the tower, eager: its only backend, and embed_audio) under
torch.no_grad with torch.set_num_threads(T) on [1, F, 128] features with an all-true mask. The two
sides alternate, --repeats rounds per length after one warm-up each, and the table shows each
side's fastest round and the median (gemmad's rounds are Google Benchmark runs: the mean of 3
iterations, 1 at 30 s).

--features times the feature extractors instead: gemmad's (bench_audio Features/clip:<S>s, one
thread) against transformers' Gemma4AudioFeatureExtractor (numpy) on the same S seconds of 16 kHz
mono samples (sines plus a ramp), 128 mels; features + encode is the sum of the two tables.
"""
import argparse
import time

from side_by_side import alternate, bench_seconds, print_table


class Transformers:
    """The E2B audio tower + projector in transformers."""

    def __init__(self, threads):
        import torch
        from transformers import Gemma4AudioConfig, Gemma4Config, Gemma4ForConditionalGeneration, Gemma4TextConfig
        torch.set_num_threads(threads)
        torch.manual_seed(0)
        text = Gemma4TextConfig(vocab_size=512, hidden_size=1536, intermediate_size=64, num_hidden_layers=1,
                                num_attention_heads=2, num_key_value_heads=1, head_dim=32, global_head_dim=32,
                                layer_types=["full_attention"], hidden_size_per_layer_input=0,
                                vocab_size_per_layer_input=0)
        audio = Gemma4AudioConfig()  # the defaults are the E2B/E4B tower
        self.model = Gemma4ForConditionalGeneration(Gemma4Config(text_config=text, vision_config=None,
                                                                 audio_config=audio)).eval()
        with torch.no_grad():
            for name, t in self.model.model.audio_tower.named_parameters():
                if name.endswith("per_dim_scale"):
                    t.normal_(0, 0.5)
        self.torch = torch

    def features(self, seconds):
        frames = 100 * seconds - 1
        i = self.torch.arange(frames * 128, dtype=self.torch.float64)
        feats = (-3.0 + 4.0 * self.torch.sin(0.013 * i)).float().view(1, frames, 128)
        return feats, self.torch.ones(1, frames, dtype=self.torch.bool)

    def time(self, batch):
        with self.torch.no_grad():
            t0 = time.perf_counter()
            out = self.model.model.get_audio_features(*batch, return_dict=True)
            elapsed = time.perf_counter() - t0
        assert out.pooler_output.shape[1] == (batch[0].shape[1] + 3) // 4
        return elapsed


class HfFeatures:
    """transformers' Gemma4AudioFeatureExtractor on one 16 kHz clip (a list of one array, as vLLM passes it)."""

    def __init__(self):
        import numpy as np
        from transformers import Gemma4AudioFeatureExtractor
        self.np = np
        self.fe = Gemma4AudioFeatureExtractor()

    def clip(self, seconds):
        t = self.np.arange(16000 * seconds) / 16000.0
        return (0.3 * self.np.sin(2 * self.np.pi * 220 * t) + 0.2 * self.np.sin(2 * self.np.pi * 1330 * t)
                + 0.05 * self.np.fmod(t * 7.0, 1.0)).astype(self.np.float32)

    def time(self, samples):
        t0 = time.perf_counter()
        out = self.fe([samples], return_tensors="np")
        elapsed = time.perf_counter() - t0
        assert out["input_features"].shape[-1] == 128
        return elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build_dir")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seconds", default="10,30")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-gemmad", action="store_true")
    ap.add_argument("--skip-hf", action="store_true")
    ap.add_argument("--features", action="store_true", help="time the feature extractors, not the towers")
    args = ap.parse_args()
    lengths = [int(s) for s in args.seconds.split(",")]
    if args.features:
        fe = None if args.skip_hf else HfFeatures()
        clips = {s: fe.clip(s) for s in lengths} if fe else {}
        rows = alternate(lengths, args.repeats,
                         None if args.skip_gemmad else lambda s: bench_seconds(args.build_dir, "bench_audio", 1,
                                                                              f"Features/clip:{s}s/"),
                         (lambda s: fe.time(clips[s])) if fe else None, lambda s: f"{s} s")
        print_table(rows, [("clip", 5, lambda s: f"{s}s"), ("samples", 8, lambda s: str(16000 * s))], "clip",
                    args.repeats, 1)
        return
    hf = None if args.skip_hf else Transformers(args.threads)
    feats = {s: hf.features(s) for s in lengths} if hf else {}
    rows = alternate(lengths, args.repeats, None if args.skip_gemmad else lambda s: bench_seconds(args.build_dir, "bench_audio", args.threads, f"seconds:{s}/"),
                     (lambda s: hf.time(feats[s])) if hf else None, lambda s: f"{s} s")
    print_table(rows, [("clip", 5, lambda s: f"{s}s"), ("frames", 7, lambda s: str(100 * s - 1))], "clip", args.repeats,
                args.threads)

if __name__ == "__main__":
    main()
