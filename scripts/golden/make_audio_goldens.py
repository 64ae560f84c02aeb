#!/usr/bin/env python3
"""Builds the audio preprocessing goldens (tests/golden/media_audio/): test audio files and what
vLLM's audio path makes of them (multimodal.md §4.1, §4.7).

Run with the dev environment (never in CI; needs librosa, soundfile, soxr, transformers, ffmpeg):
    /work/venv-dev/bin/python scripts/golden/make_audio_goldens.py

What it writes:
  * short test clips (sums of sines + noise, fixed seeds): WAV with 8-bit unsigned, 16/24/32-bit
    integer and float data, mono/stereo/3 channels at 8, 11.025, 16, 22.05, 24, 44.1, 48 kHz
    (soundfile), FLAC and OGG/Vorbis (soundfile), MP3 and OGG/Opus (the ffmpeg CLI; one MP3
    without ID3 tag or Xing header, so neither the container nor the length is announced);
  * expected.json: per clip, what librosa.load(BytesIO(bytes), sr=None, mono=True) returns (vLLM's
    AudioMediaIO): rate, channels, sample count, sha256 of the float32 samples, their float64
    sum and 64 values at fixed indices; the length of librosa.resample(y, sr, 16000,
    res_type="soxr_hq") (vLLM's resampler) and the sha256 of that output; the valid frame count,
    soft-token count and the sha256 of the Hugging Face Gemma4AudioFeatureExtractor features
    (feature_size 128 and 16, audio passed as a list of one 1-D array, valid frames only);
  * <clip>.16k.f32: the resampled clip (float32 little-endian), the feature extractor's input;
  * <clip>.mel16.f32 (every clip) and <clip>.mel128.f32 (four clips): its valid features [F, mels]
    (float32 little-endian); the other clips' 128-mel features are recorded by sha256, sum and
    32 values in expected.json (keeps the goldens small);
  * token_counts.json: for the spec's table of lengths, the HF mask's valid-frame count and
    ceil(F / 4), plus the batch check (two clips padded together keep their single-clip frames).
Then updates the media_audio entries of tests/golden/MANIFEST.json.
"""
import hashlib
import io
import json
import os
import platform
import shutil
import subprocess
import sys
import warnings

import librosa
import numpy as np
import soundfile as sf
import soxr
import transformers
from transformers.models.gemma4.feature_extraction_gemma4 import Gemma4AudioFeatureExtractor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
GOLDEN_ROOT = os.path.join(ROOT, "tests", "golden")
AREA = "media_audio"
SEED = 20260721
QUIET = ["-hide_banner", "-nostdin", "-loglevel", "error", "-y"]

# name -> (rate, channels, seconds, writer): writer is ("sf", format, subtype) or ("ffmpeg", args).
CLIPS = {
    "s16_16k_mono.wav": (16000, 1, 0.61, ("sf", "WAV", "PCM_16")),
    "s16_44k_stereo.wav": (44100, 2, 0.2, ("sf", "WAV", "PCM_16")),
    "u8_22k_mono.wav": (22050, 1, 0.3, ("sf", "WAV", "PCM_U8")),
    "f32_48k_mono.wav": (48000, 1, 0.2, ("sf", "WAV", "FLOAT")),
    "s24_8k_mono.wav": (8000, 1, 0.3, ("sf", "WAV", "PCM_24")),
    "s32_24k_mono.wav": (24000, 1, 0.2, ("sf", "WAV", "PCM_32")),
    "s16_11k_3ch.wav": (11025, 3, 0.25, ("sf", "WAV", "PCM_16")),
    "flac_44k_stereo.flac": (44100, 2, 0.25, ("sf", "FLAC", "PCM_16")),
    "vorbis_22k_mono.ogg": (22050, 1, 0.3, ("sf", "OGG", "VORBIS")),
    "opus_48k_mono.opus": (48000, 1, 0.25, ("ffmpeg", ["-c:a", "libopus", "-b:a", "32k"])),
    "mp3_44k_mono.mp3": (44100, 1, 0.3, ("ffmpeg", ["-c:a", "libmp3lame", "-b:a", "64k"])),
    "mp3_22k_bare.mp3": (22050, 1, 0.3, ("ffmpeg", ["-c:a", "libmp3lame", "-b:a", "32k", "-id3v2_version", "0",
                                                     "-write_xing", "0"])),
}
# Clips whose 128-mel features are stored whole (the others: sha256, sum and sampled values).
MEL128_FILES = {"s16_16k_mono.wav", "s16_44k_stereo.wav", "mp3_44k_mono.mp3", "vorbis_22k_mono.ogg"}
LOSSLESS = {name for name, (_, _, _, w) in CLIPS.items() if w[0] == "sf" and w[2] != "VORBIS"}
# multimodal.md §4.7: samples at 16 kHz -> (F_valid, soft tokens), after the 30 s truncation.
TOKEN_TABLE = [(160, 0, 0), (16000, 99, 25), (38560, 240, 60), (48000, 299, 75), (48800, 304, 76),
               (99360, 620, 155), (160000, 999, 250), (480000, 2999, 750), (640000, 2999, 750)]


def sha256(b):
    return hashlib.sha256(b).hexdigest()


def signal(rate, channels, seconds, seed):
    """[frames, channels] float64 in (-1, 1): two or three sines per channel plus a little noise."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(round(rate * seconds))) / rate
    cols = []
    for c in range(channels):
        f = rng.uniform(80, min(3800, rate / 2 - 200), size=3)
        a = rng.uniform(0.1, 0.3, size=3)
        x = sum(a[i] * np.sin(2 * np.pi * f[i] * t + rng.uniform(0, 6)) for i in range(3))
        cols.append(x + 0.02 * rng.standard_normal(t.shape))
    return np.clip(np.stack(cols, axis=1), -0.99, 0.99)


def write_clip(out, name, rate, channels, seconds, writer, seed):
    x = signal(rate, channels, seconds, seed)
    path = os.path.join(out, name)
    if writer[0] == "sf":
        sf.write(path, x, rate, format=writer[1], subtype=writer[2])
        return path
    raw = os.path.join(out, "tmp.wav")
    sf.write(raw, x, rate, subtype="PCM_16")
    subprocess.run(["ffmpeg", *QUIET, "-i", raw, *writer[1], "-fflags", "+bitexact", "-flags:a", "+bitexact",
                    "-map_metadata", "-1", path], check=True)
    os.remove(raw)
    return path


def features(fe, y):
    """HF features of one clip: list input, valid frames only. [F, mels] float32."""
    r = fe([y])
    feat, mask = np.asarray(r["input_features"][0]), np.asarray(r["input_features_mask"][0])
    assert mask.ndim == 1 and (mask[: mask.sum()]).all(), "mask is not a prefix"
    return feat[: int(mask.sum())].astype("<f4")


def sample_indices(n, k=64):
    return sorted(set(int(i) for i in np.linspace(0, n - 1, k))) if n else []


def main():
    out = os.path.join(GOLDEN_ROOT, AREA)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fe128 = Gemma4AudioFeatureExtractor(feature_size=128)
        fe16 = Gemma4AudioFeatureExtractor(feature_size=16)
    expected = {}
    for i, (name, (rate, channels, seconds, writer)) in enumerate(CLIPS.items()):
        path = write_clip(out, name, rate, channels, seconds, writer, SEED + i)
        with open(path, "rb") as f:
            data = f.read()
        info = sf.info(io.BytesIO(data))
        y, sr = librosa.load(io.BytesIO(data), sr=None, mono=True)  # vLLM AudioMediaIO.load_bytes
        assert y.dtype == np.float32 and sr == info.samplerate
        y16 = librosa.resample(y, orig_sr=sr, target_sr=16000, res_type="soxr_hq") if sr != 16000 else y
        assert y16.dtype == np.float32 and len(y16) == int(np.ceil(len(y) * (16000 / sr)))
        stem = name.rsplit(".", 1)[0]
        with open(os.path.join(out, stem + ".16k.f32"), "wb") as f:
            f.write(y16.astype("<f4").tobytes())
        entry = {"sample_rate": int(sr), "channels": int(info.channels), "frames": int(len(y)),
                 "format": info.format, "subtype": info.subtype, "lossless": name in LOSSLESS,
                 "samples_sha256": sha256(y.astype("<f4").tobytes()), "samples_sum": float(np.sum(y, dtype=np.float64)),
                 "sample_indices": sample_indices(len(y)), "resampled_length": int(len(y16)),
                 "resampled_sha256": sha256(y16.astype("<f4").tobytes()), "resampled_file": stem + ".16k.f32"}
        entry["sample_values"] = [float(y[j]) for j in entry["sample_indices"]]
        for mels, fe in ((128, fe128), (16, fe16)):
            feat = features(fe, y16)
            flat = feat.reshape(-1)
            idx = sample_indices(flat.size, 32)
            entry[f"mel{mels}"] = {"frames": int(feat.shape[0]), "sha256": sha256(feat.tobytes()),
                                   "soft_tokens": int(-(-feat.shape[0] // 4)), "sum": float(np.sum(feat, dtype=np.float64)),
                                   "value_indices": idx, "values": [float(flat[j]) for j in idx]}
            if mels == 16 or name in MEL128_FILES:
                fname = f"{stem}.mel{mels}.f32"
                with open(os.path.join(out, fname), "wb") as f:
                    f.write(feat.tobytes())
                entry[f"mel{mels}"]["file"] = fname
        expected[name] = entry
    write_json(os.path.join(out, "expected.json"), {"clips": expected, "seed": SEED})
    write_json(os.path.join(out, "token_counts.json"), token_counts(fe16))
    sys.path.insert(0, HERE)
    from check_manifest import update_manifest  # noqa: E402
    ffmpeg_version = subprocess.run(["ffmpeg", "-version"], check=True, capture_output=True).stdout.decode().split()[2]
    update_manifest(GOLDEN_ROOT, AREA, {"generator": "scripts/golden/make_audio_goldens.py", "seed": SEED,
                                        "versions": {"python": platform.python_version(), "numpy": np.__version__,
                                                     "librosa": librosa.__version__, "soundfile": sf.__version__,
                                                     "libsndfile": sf.__libsndfile_version__,
                                                     "soxr": soxr.__version__, "transformers": transformers.__version__,
                                                     "ffmpeg": ffmpeg_version}})
    print(f"wrote {len(os.listdir(out))} files to {out}")


def token_counts(fe):
    """HF's valid-frame count for the spec's lengths (mask sum) and a two-clip batch check."""
    rng = np.random.default_rng(SEED)
    rows = []
    for n, f_spec, m_spec in TOKEN_TABLE:
        mask = np.asarray(fe([np.zeros(n, np.float32)])["input_features_mask"][0])
        f_valid = int(mask.sum())
        assert (f_valid, -(-f_valid // 4)) == (f_spec, m_spec), (n, f_valid)
        rows.append({"samples": n, "frames": f_valid, "soft_tokens": -(-f_valid // 4)})
    a = rng.uniform(-0.5, 0.5, 5920).astype(np.float32)   # 0.37 s
    b = rng.uniform(-0.5, 0.5, 16000).astype(np.float32)  # 1 s
    batch = fe([a, b])
    for k, y in enumerate((a, b)):
        single = features(fe, y)
        m = np.asarray(batch["input_features_mask"][k])
        assert int(m.sum()) == single.shape[0]
        assert np.array_equal(np.asarray(batch["input_features"][k])[: single.shape[0]], single)
    return {"table": rows, "batch_padding_keeps_single_clip_frames": True}


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(obj, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
