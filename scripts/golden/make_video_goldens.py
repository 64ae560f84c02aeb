#!/usr/bin/env python3
"""Builds the video decoding goldens (tests/golden/media_video/) with the ffmpeg CLI and numpy.

Run with the dev environment (never in CI):
    /work/venv-dev/bin/python scripts/golden/make_video_goldens.py [--check-opencv DIR]

What it writes (docs/media.md "Video"):
  * tiny test videos made from lavfi sources (testsrc, testsrc2, mandelbrot): H.264 in MP4, VP9
    in WebM at an odd size, MPEG-4 Part 2 in Matroska (fewer frames than sampled), GIF, MJPEG in
    AVI (full-range yuvj), a raw H.264 stream (no frame count or duration in the container), an MP4
    with a 90-degree rotation, an AAC-only M4A (no video stream) and lossless FFV1 video in
    Matroska (a codec gemmad does not decode);
  * expected.json: for each video what vLLM's loader reports and keeps, computed here from
    ffprobe's stream facts with the rules of OpenCV's capture (CAP_PROP_FRAME_COUNT = nb_frames,
    else floor(duration * fps + 0.5); CAP_PROP_FPS = avg_frame_rate, else 1 / time_base) and
    vLLM's sampling (np.linspace(0, total - 1, min(32, total), dtype=int), all frames when
    total <= 32), and the sha256 of every sampled RGB frame in both colour modes:
      opencv    `ffmpeg -pix_fmt rgb24` (libswscale SWS_BICUBIC, what OpenCV's capture does)
      accurate  `ffmpeg -sws_flags bicubic+accurate_rnd+full_chroma_int+bitexact -pix_fmt rgb24`
    decoded with `-fps_mode passthrough` (every decoded frame once, in order). The rotated video is
    decoded with -noautorotate and turned with numpy (OpenCV's direction); the raw H.264 stream's
    frame count is counted by decoding (vLLM's OpenCV reports a negative count there, see the doc);
  * mpeg4_48x32_10f.opencv.rgb: the raw RGB frames of one video (opencv mode) so that a mismatch
    can be reported as a pixel difference;
  * sampling.json: np.linspace(0, total - 1, n, dtype=int) (vLLM's rule) for many (total, n);
  * timestamps.json: vLLM's f"{int(t // 60):02d}:{int(t % 60):02d}" with t = index / (fps or 24).
Then updates the media_video entries of tests/golden/MANIFEST.json.

--check-opencv DIR: also decode every video with OpenCV (cv2 importable from DIR, e.g. a
`pip install --target DIR opencv-python-headless`) the way vLLM's loader does and assert that its
frame count, fps, kept indices and pixels equal the opencv-mode goldens (writes nothing extra).
"""
import argparse
import hashlib
import io
import json
import os
import platform
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
GOLDEN_ROOT = os.path.join(ROOT, "tests", "golden")
AREA = "media_video"
NUM_FRAMES = 32  # vLLM VideoMediaIO's default
QUIET = ["-hide_banner", "-nostdin", "-loglevel", "error", "-y"]
BITEXACT = ["-fflags", "+bitexact", "-flags:v", "+bitexact"]
X264 = ["-c:v", "libx264", "-preset", "veryslow", "-x264-params", "threads=1", "-pix_fmt", "yuv420p"]
SWS = {"opencv": "bicubic", "accurate": "bicubic+accurate_rnd+full_chroma_int+bitexact"}

# name -> (ffmpeg arguments producing it, rotation OpenCV applies (clockwise degrees)); a rotated
# video is encoded first and then remuxed with the rotate tag (ffmpeg 5.1 writes the display
# matrix only when copying the stream).
VIDEOS = {
    "h264_64x48_40f.mp4": (["-f", "lavfi", "-i", "testsrc=size=64x48:rate=25", "-frames:v", "40", *X264, *BITEXACT], 0),
    "vp9_63x47_64f.webm": (["-f", "lavfi", "-i", "mandelbrot=size=63x47:rate=30000/1001", "-frames:v", "64",
                            "-c:v", "libvpx-vp9", "-threads", "1", "-b:v", "40k", "-pix_fmt", "yuv420p",
                            "-fflags", "+bitexact"], 0),
    "mpeg4_48x32_10f.mkv": (["-f", "lavfi", "-i", "testsrc2=size=48x32:rate=10", "-frames:v", "10", "-c:v", "mpeg4",
                             "-q:v", "5", *BITEXACT], 0),
    "gif_40x30_12f.gif": (["-f", "lavfi", "-i", "testsrc=size=40x30:rate=10", "-frames:v", "12", "-fflags",
                           "+bitexact"], 0),
    "mjpeg_48x32_20f.avi": (["-f", "lavfi", "-i", "testsrc2=size=48x32:rate=24", "-frames:v", "20", "-c:v", "mjpeg",
                             "-pix_fmt", "yuvj420p", "-q:v", "8", *BITEXACT], 0),
    "h264_64x48_50f.h264": (["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25", "-frames:v", "50", *X264, *BITEXACT,
                             "-f", "h264"], 0),
    # rotate=90 is stored as a display matrix that OpenCV turns into ROTATE_90_COUNTERCLOCKWISE.
    "h264_rot90_64x48_40f.mp4": (["-f", "lavfi", "-i", "testsrc=size=64x48:rate=25", "-frames:v", "40", *X264,
                                  *BITEXACT], 270),
}
AUDIO_ONLY = ("aac_audio_only.m4a", ["-f", "lavfi", "-i", "sine=frequency=440:duration=0.3", "-c:a", "aac",
                                     "-fflags", "+bitexact"])
# A codec gemmad does not decode (FFV1, lossless): must be refused with a clear error.
UNSUPPORTED_CODEC = ("ffv1_8x6_2f.mkv", ["-f", "lavfi", "-i", "testsrc=size=8x6:rate=5", "-frames:v", "2",
                                         "-c:v", "ffv1", *BITEXACT])
RAW_FRAMES_OF = "mpeg4_48x32_10f.mkv"


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True).stdout


def linspace_indices(total, n):
    """vLLM VideoBackend.compute_frames_index_to_sample (no fps target)."""
    if total <= 0:
        return []
    k = total if n <= 0 else min(n, total)
    if k == total:
        return list(range(total))
    return [int(i) for i in np.linspace(0, total - 1, k, dtype=int)]


def rational(s):
    num, _, den = s.partition("/")
    num, den = float(num), float(den or 1)
    return 0.0 if num == 0 or den == 0 else num / den


def probe(path):
    out = json.loads(run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                          "stream=width,height,nb_frames,avg_frame_rate,time_base,duration:format=duration",
                          "-of", "json", path]))
    st, fmt = out["streams"][0], out.get("format", {})
    fps = rational(st["avg_frame_rate"])
    if fps < 0.000025:
        tb = rational(st["time_base"])
        fps = 1.0 / tb if tb else 0.0
    # OpenCV: nb_frames, else floor(duration * fps + 0.5); ffprobe prints N/A for absent fields.
    nb = int(st["nb_frames"]) if st.get("nb_frames", "N/A") != "N/A" else 0
    dur = float(fmt["duration"]) if fmt.get("duration", "N/A") != "N/A" else -1.0
    if dur < 0.000025:
        dur = float(st["duration"]) if st.get("duration", "N/A") != "N/A" else -1.0
    reported = nb if nb != 0 else int(np.floor(dur * fps + 0.5))
    return int(st["width"]), int(st["height"]), fps, reported


def decode_all(path, mode, rotation, width, height):
    """Every decoded frame as RGB [n, h, w, 3], turned like OpenCV turns it."""
    pre = ["-noautorotate"] if rotation else []
    raw = run(["ffmpeg", *QUIET, *pre, "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough", "-sws_flags", SWS[mode],
               "-pix_fmt", "rgb24", "-f", "rawvideo", "-"])
    frames = np.frombuffer(raw, np.uint8).reshape(-1, height, width, 3)
    if rotation:
        frames = np.stack([np.rot90(f, k=-rotation // 90) for f in frames])
    return frames


def make_video(directory, name, args, rotation=0):
    path = os.path.join(directory, name)
    if not rotation:
        run(["ffmpeg", *QUIET, *args, path])
        return path
    plain = path + ".plain.mp4"
    run(["ffmpeg", *QUIET, *args, plain])
    tag = {90: 270, 180: 180, 270: 90}[rotation]  # the tag is counter-clockwise
    run(["ffmpeg", *QUIET, "-i", plain, "-c", "copy", "-metadata:s:v:0", f"rotate={tag}", "-fflags", "+bitexact", path])
    os.remove(plain)
    return path


def expected_for(path, rotation):
    width, height, fps, reported = probe(path)
    frames = {m: decode_all(path, m, rotation, width, height) for m in SWS}
    decoded = len(frames["opencv"])
    total = reported if reported >= 1 else decoded  # gemmad counts by decoding when the container has no count
    indices = [i for i in linspace_indices(total, NUM_FRAMES) if i < decoded]
    out_h, out_w = frames["opencv"].shape[1:3]
    entry = {"width": out_w, "height": out_h, "fps": fps, "total_frames": total, "decoded_frames": decoded,
             "opencv_reported_frames": reported, "duration_s": total / fps if fps > 0 else 0.0,
             "num_frames": NUM_FRAMES, "frame_indices": indices, "rotation": rotation}
    for mode, all_frames in frames.items():
        entry["sha256_" + mode] = [hashlib.sha256(all_frames[i].tobytes()).hexdigest() for i in indices]
    return entry, frames["opencv"][indices]


def check_opencv(cv_dir, directory, expected):
    sys.path.insert(0, cv_dir)
    import cv2  # noqa: E402 (only with --check-opencv)
    for name, e in expected.items():
        data = open(os.path.join(directory, name), "rb").read()
        cap = cv2.VideoCapture(io.BytesIO(data), cv2.CAP_FFMPEG, [])
        assert cap.isOpened(), name
        total, fps = int(cap.get(cv2.CAP_PROP_FRAME_COUNT)), cap.get(cv2.CAP_PROP_FPS)
        idx = set(linspace_indices(total, NUM_FRAMES)) if total > 0 else {0}  # vLLM: max(1, n) -> [0]
        kept, k = [], 0
        while cap.grab():
            if k in idx:
                kept.append((k, cv2.cvtColor(cap.retrieve()[1], cv2.COLOR_BGR2RGB)))
            k += 1
        shas = [hashlib.sha256(f.tobytes()).hexdigest() for _, f in kept]
        same_count = total == e["total_frames"]
        print(f"{name}: OpenCV count {total} fps {fps} kept {len(kept)}; golden total {e['total_frames']} "
              f"fps {e['fps']} kept {len(e['frame_indices'])}")
        assert fps == e["fps"], name
        if same_count:
            assert [i for i, _ in kept] == e["frame_indices"], name
            assert shas == e["sha256_opencv"], f"{name}: pixels differ from OpenCV"
        else:  # only the raw stream: OpenCV reports no usable count, vLLM keeps frame 0
            assert e["opencv_reported_frames"] < 1 and [i for i, _ in kept] == [0], name
            assert shas[0] == e["sha256_opencv"][0], name
    print("OpenCV agrees with the opencv-mode goldens")


def sampling_table():
    rows = []
    totals = list(range(1, 71)) + [97, 127, 128, 129, 999, 1000, 1001, 12345, 215999, 216000, 1000003, 2 ** 31 + 11]
    for total in totals:
        for n in (-1, 1, 2, 3, 5, 8, 16, 31, 32, 33, 64):
            if n == -1 and total > 40:
                continue
            rows.append({"total": total, "num_frames": n, "indices": linspace_indices(total, n)})
    return rows


def timestamp_table():
    rows = []
    fpses = [24.0, 25.0, 30000 / 1001, 24000 / 1001, 60000 / 1001, 29.97, 0.5, 1.0, 7.0, 1e-3, 90000.0, 0.0]
    indices = [0, 1, 23, 24, 25, 29, 30, 59, 60, 1439, 1440, 1798, 1799, 1800, 3599, 3600, 86399, 86400, 86401,
               107892, 107891, 215784, 359999, 360000, 10 ** 7, 2 ** 40 + 3]
    for fps in fpses:
        for idx in indices:
            t = idx / (fps or 24)
            rows.append({"index": idx, "fps": fps, "text": f"{int(t // 60):02d}:{int(t % 60):02d}"})
    return rows


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(obj, indent=1, sort_keys=True) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check-opencv", metavar="DIR", help="a directory from which cv2 imports")
    args = ap.parse_args()
    out = os.path.join(GOLDEN_ROOT, AREA)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    expected = {}
    for name, (ff_args, rotation) in VIDEOS.items():
        path = make_video(out, name, ff_args, rotation)
        expected[name], kept = expected_for(path, rotation)
        if name == RAW_FRAMES_OF:
            with open(os.path.join(out, name.rsplit(".", 1)[0] + ".opencv.rgb"), "wb") as f:
                f.write(kept.tobytes())
    make_video(out, AUDIO_ONLY[0], AUDIO_ONLY[1])
    make_video(out, UNSUPPORTED_CODEC[0], UNSUPPORTED_CODEC[1])
    write_json(os.path.join(out, "expected.json"), {"videos": expected, "raw_frames": {
        RAW_FRAMES_OF: RAW_FRAMES_OF.rsplit(".", 1)[0] + ".opencv.rgb"}, "audio_only": AUDIO_ONLY[0],
        "unsupported_codec": UNSUPPORTED_CODEC[0]})
    with open(os.path.join(out, "sampling.json"), "w", encoding="utf-8") as f:  # one case per line
        f.write("[\n" + ",\n".join(json.dumps(r, sort_keys=True) for r in sampling_table()) + "\n]\n")
    write_json(os.path.join(out, "timestamps.json"), timestamp_table())
    if args.check_opencv:
        check_opencv(args.check_opencv, out, expected)
    ffmpeg_version = run(["ffmpeg", "-version"]).decode().split("\n")[0].split(" ")[2]
    sys.path.insert(0, HERE)
    from check_manifest import update_manifest  # noqa: E402
    update_manifest(GOLDEN_ROOT, AREA, {"generator": "scripts/golden/make_video_goldens.py",
                                        "versions": {"python": platform.python_version(), "numpy": np.__version__,
                                                     "ffmpeg": ffmpeg_version}})
    print(f"wrote {len(os.listdir(out))} files to {out}")


if __name__ == "__main__":
    main()
