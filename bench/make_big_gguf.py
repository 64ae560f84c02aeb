#!/usr/bin/env python3
"""A real-shape random Gemma 4 31B or 26B-A4B GGUF written directly at 4 bits (issue 26, item 3).

No bf16 checkpoint is written (62 / 52 GB): llama.cpp's own converter (convert_hf_to_gguf.py from
the llama-cpp-python sdist's vendored source, never committed) runs on a config-only directory, its
tensor index replaced by the model's tensor names and shapes (transformers, on the meta device), so
the GGUF's metadata and tensor names are exactly the converter's. Every matrix is forced to Q4_0
and written as random blocks (an f16 scale drawn from [0.004, 0.02) and random nibbles) instead of
quantizing values; 1-D tensors (norms, scalars) are 1 + 0.05·N(0, 1); the converter's own extra
tensors (rope_freqs) are as it makes them. Both gemmad and llama.cpp then read the one file.

Needs the dev environment (scripts/setup.sh --dev: torch, transformers) and the peer's source tree.
Usage: .venv/bin/python bench/make_big_gguf.py --llama-src DIR --tokenizer-dir DIR --preset 31b|26b
       --out F.gguf [--template-config CONFIG.json]
--template-config is a Gemma 4 config.json (e.g. the E2B preset's, `gemmad make-test-model --preset
e2b`) whose text_config is reshaped to the preset, as gemmad's presets (src/model/gemma4/presets.cc)
define them.
"""
import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np


def text_config(base, preset):
    t = dict(base)
    layers = 60 if preset == "31b" else 30
    t.update(
        hidden_size=5376 if preset == "31b" else 2816,
        intermediate_size=21504 if preset == "31b" else 2112,
        num_hidden_layers=layers,
        layer_types=["full_attention" if (i + 1) % 6 == 0 else "sliding_attention" for i in range(layers)],
        num_attention_heads=32 if preset == "31b" else 16,
        num_key_value_heads=16 if preset == "31b" else 8,
        num_global_key_value_heads=4 if preset == "31b" else 2,
        attention_k_eq_v=True,
        sliding_window=1024,
        max_position_embeddings=262144,
        hidden_size_per_layer_input=0,
        vocab_size_per_layer_input=0,
        num_kv_shared_layers=0,
        use_double_wide_mlp=False,
        use_bidirectional_attention="vision",
    )
    if preset == "26b":
        t.update(enable_moe_block=True, num_experts=128, top_k_experts=8, moe_intermediate_size=704)
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--llama-src", required=True)
    ap.add_argument("--tokenizer-dir", required=True)
    ap.add_argument("--template-config", required=True)
    ap.add_argument("--preset", choices=["31b", "26b"], required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dry-run", action="store_true", help="check the metadata and tensor map, write nothing")
    args = ap.parse_args()

    sys.path.insert(0, args.llama_src)
    sys.path.insert(1, str(Path(args.llama_src) / "gguf-py"))
    import torch
    import gguf
    import transformers
    from conversion import ModelBase, get_model_architecture, get_model_class, ModelType

    work = Path(tempfile.mkdtemp(prefix="big-gguf-"))
    cfg = json.load(open(args.template_config))
    cfg["text_config"] = text_config(cfg["text_config"], args.preset)
    cfg.pop("audio_config", None)
    cfg["audio_token_id"] = 0
    json.dump(cfg, open(work / "config.json", "w"), indent=1)
    for f in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(Path(args.tokenizer_dir) / f, work / f)

    # The text model's tensors, names and shapes as a checkpoint of this config holds them.
    tc = transformers.AutoConfig.from_pretrained(work)
    with torch.device("meta"):
        model = transformers.AutoModelForImageTextToText.from_config(tc)
    shapes = {n: tuple(p.shape) for n, p in model.state_dict().items()
              if ".language_model." in n or n.startswith("lm_head")}
    del model
    print(f"{len(shapes)} text tensors, {sum(int(np.prod(s)) for s in shapes.values()) / 1e9:.2f} B values", flush=True)

    rng = np.random.default_rng(args.seed)

    def index_tensors(self, remote_hf_model_id=None):
        out = {}
        for name, shape in shapes.items():
            def gen(shape=shape):
                if len(shape) <= 1:
                    return 1.0 + 0.05 * torch.randn(shape, dtype=torch.float32)
                return torch.empty(shape, dtype=torch.float32)  # values unused: written as random blocks
            if item := self.filter_tensors((name, gen)):
                out[item[0]] = item[1]
        return out

    def random_q4_0_blocks(cls, blocks):
        n = blocks.shape[0]
        scale = rng.uniform(0.004, 0.02, size=(n, 1)).astype(np.float16).view(np.uint8)
        qs = rng.integers(0, 256, size=(n, 16), dtype=np.uint8)
        return np.concatenate([scale, qs], axis=1)

    ModelBase.index_tensors = index_tensors
    gguf.quants.Q4_0.quantize_blocks = classmethod(random_q4_0_blocks)
    hparams = ModelBase.load_hparams(work, False)
    cls = get_model_class(get_model_architecture(hparams, ModelType.TEXT))
    cls.tensor_force_quant = lambda self, name, new_name, bid, n_dims: (
        gguf.GGMLQuantizationType.Q4_0 if n_dims >= 2 else False)
    with torch.inference_mode():
        m = cls(work, gguf.LlamaFileType.MOSTLY_Q8_0, Path(args.out), is_big_endian=False, use_temp_file=False,
                eager=False, metadata_override=None, model_name=f"gemma4-{args.preset}-random-q4_0",
                split_max_tensors=0, split_max_size=0, dry_run=args.dry_run, small_first_shard=False)
        m.write()
    shutil.rmtree(work)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
