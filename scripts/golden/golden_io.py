"""Writing gemmad golden files: a JSON index plus one raw little-endian data file (no numpy needed
to read it back), safetensors header extraction; MANIFEST.json maintenance is check_manifest.update_manifest.

Golden file format ("gemmad-golden-v1"), documented in docs/checkpoints-and-goldens.md:
  <name>.json  {"format": "gemmad-golden-v1", "data_file": "<name>.bin", "arrays": {key: {"dtype":
               "f32"|"bf16"|"i64", "shape": [...], "offset": bytes, "bytes": n}}, ...}
  <name>.bin   the arrays back to back, little-endian, row-major (bf16 = the upper 16 bits of an f32).
"""
import json
import os
import struct

import torch

# torch-free; re-exported for the generators
from check_manifest import sha256_file, update_manifest, write_json  # noqa: F401


class GoldenWriter:
    """Collects named tensors and writes <stem>.json + <stem>.bin."""

    def __init__(self):
        self.arrays = {}
        self.chunks = []
        self.offset = 0

    def add(self, key, t):
        t = t.detach().contiguous().cpu()
        if t.dtype == torch.float32:
            dtype, raw = "f32", t.numpy().astype("<f4").tobytes()
        elif t.dtype == torch.bfloat16:
            dtype, raw = "bf16", t.view(torch.int16).numpy().astype("<i2").tobytes()
        elif t.dtype == torch.int64:
            dtype, raw = "i64", t.numpy().astype("<i8").tobytes()
        else:
            raise ValueError(f"{key}: unsupported dtype {t.dtype}")
        assert key not in self.arrays, key
        self.arrays[key] = {"dtype": dtype, "shape": list(t.shape), "offset": self.offset, "bytes": len(raw)}
        self.chunks.append(raw)
        self.offset += len(raw)

    def write(self, directory, stem, extra):
        index = {"format": "gemmad-golden-v1", "data_file": stem + ".bin", "arrays": self.arrays}
        index.update(extra)
        with open(os.path.join(directory, stem + ".bin"), "wb") as f:
            f.write(b"".join(self.chunks))
        write_json(os.path.join(directory, stem + ".json"), index)


def eager_experts(model):
    """MoE experts as plain loops (the reference numerics), where the transformers version has the switch."""
    if hasattr(model, "set_experts_implementation"):
        try:
            model.set_experts_implementation("eager")
        except (ValueError, AttributeError):
            pass
    return model


def float32_model(config, state):
    """A float32 causal LM of `config` (eager attention and experts) holding exactly `state`; the tied
    lm_head is the only tensor `state` may leave out."""
    import transformers

    model = transformers.AutoModelForCausalLM.from_config(config, dtype=torch.float32, attn_implementation="eager")
    eager_experts(model)
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [m for m in missing if m != "lm_head.weight"]
    assert not missing and not unexpected, (missing, unexpected)
    model.tie_weights()
    return model.eval()


def safetensors_header(path):
    """The header JSON text of a safetensors file (padding stripped) and {name: {dtype, shape}}."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        text = f.read(n).decode("utf-8").rstrip(" ")
    parsed = json.loads(text)
    tensors = {k: {"dtype": v["dtype"], "shape": v["shape"]} for k, v in parsed.items() if k != "__metadata__"}
    return text, tensors
