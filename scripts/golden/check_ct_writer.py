#!/usr/bin/env python3
"""Dev check (torch, transformers, compressed-tensors; never in CI): a checkpoint written by
`gemmad make-test-model DIR --preset e2e --weight-format w4a16|fp8` loads in transformers through the
compressed-tensors quantizer, and the library's decompression of each quantized module equals
bf16(q·s) computed from the file as gemmad reads it (int4: the int32 words low nibble first, u - 8;
FP8: the E4M3 bytes times the row scale).

    .venv/bin/python scripts/golden/check_ct_writer.py DIR
"""
import sys

import safetensors
import torch
import transformers


def main(d):
    model = transformers.AutoModelForImageTextToText.from_pretrained(d, dtype=torch.bfloat16)
    with torch.no_grad():
        model(input_ids=torch.tensor([[2, 100, 200]]))  # decompresses on the first forward
    modules = dict(model.named_modules())
    checked = 0
    with safetensors.safe_open(d + "/model.safetensors", "pt") as f:
        for key in f.keys():
            if key.endswith(".weight") and f.get_slice(key).get_dtype() == "F8_E4M3":
                name = key[: -len(".weight")]
                want = (f.get_tensor(key).float() * f.get_tensor(name + ".weight_scale").float()).to(torch.bfloat16)
                assert torch.equal(want, modules[name].weight.data), name
                checked += 1
                continue
            if not key.endswith(".weight_packed"):
                continue
            name = key[: -len(".weight_packed")]
            packed, scale = f.get_tensor(key), f.get_tensor(name + ".weight_scale")
            q = torch.stack([(packed >> (4 * i)) & 15 for i in range(8)], -1).reshape(packed.shape[0], -1) - 8
            want = q.to(torch.bfloat16) * scale.repeat_interleave(q.shape[1] // scale.shape[1], 1)
            got = modules[name].weight.data
            assert torch.equal(want, got), name
            checked += 1
    print(f"{checked} quantized modules: transformers' decompression equals q*s bit for bit")


if __name__ == "__main__":
    main(sys.argv[1])
