// DecodeAudio (see audio_decode.h): libsndfile over the bytes through its virtual I/O.
#include "mm/audio_decode.h"

#include <fmt/format.h>
#include <sndfile.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>

#include "base/stopwatch.h"
#include "mm/ogg_vorbis_check.h"

namespace gemmad::mm {
namespace {

constexpr sf_count_t kChunkFrames = 4096;  // frames per sf_readf_float call

Status Refused(std::string_view what) { return InvalidArgumentError(fmt::format("audio: {}", what)); }

// A read-only file over the bytes, positioned like Python's BytesIO (what soundfile reads from in
// vLLM): seeking past the end is allowed, reading there yields nothing.
struct MemoryFile {
  const uint8_t* data = nullptr;
  sf_count_t size = 0;
  sf_count_t pos = 0;
};

sf_count_t VioLength(void* user) { return static_cast<MemoryFile*>(user)->size; }

sf_count_t VioSeek(sf_count_t offset, int whence, void* user) {
  auto* f = static_cast<MemoryFile*>(user);
  sf_count_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? f->pos : whence == SEEK_END ? f->size : -1;
  sf_count_t target = 0;
  if (base < 0 || __builtin_add_overflow(base, offset, &target) || target < 0) return -1;
  f->pos = target;
  return f->pos;
}

sf_count_t VioRead(void* ptr, sf_count_t count, void* user) {
  auto* f = static_cast<MemoryFile*>(user);
  if (count <= 0 || f->pos >= f->size) return 0;
  const sf_count_t n = std::min(count, f->size - f->pos);
  std::memcpy(ptr, f->data + f->pos, static_cast<size_t>(n));
  f->pos += n;
  return n;
}

sf_count_t VioWrite(const void*, sf_count_t, void*) { return 0; }
sf_count_t VioTell(void* user) { return static_cast<MemoryFile*>(user)->pos; }

// libsndfile's one-line description of its last error (its open errors live in a global, hence
// the lock around opening); kept short and on one line.
std::string OneLine(const char* text) {
  std::string s = text != nullptr ? text : "unknown error";
  std::replace(s.begin(), s.end(), '\n', ' ');
  while (!s.empty() && (s.back() == ' ' || s.back() == '.')) s.pop_back();
  if (s.size() > 200) s.resize(200);
  return s;
}

struct SndfileCloser {
  void operator()(SNDFILE* f) const { sf_close(f); }
};
using SndfilePtr = std::unique_ptr<SNDFILE, SndfileCloser>;

std::string FormatName(SNDFILE* file, int format) {
  SF_FORMAT_INFO info{};
  info.format = format & SF_FORMAT_TYPEMASK;
  if (sf_command(file, SFC_GET_FORMAT_INFO, &info, sizeof(info)) != 0 || info.name == nullptr) return "unknown";
  return info.name;
}

// Mixes `frames` interleaved frames of `channels` channels into `out` by the channel mean:
// float32 sum in channel order, then the division in double (numpy's mean of float32 data divides
// by an intp count).
void AppendMono(const float* interleaved, sf_count_t frames, int channels, std::vector<float>& out) {
  if (channels == 1) {
    out.insert(out.end(), interleaved, interleaved + frames);
    return;
  }
  for (sf_count_t f = 0; f < frames; ++f) {
    const float* frame = interleaved + f * channels;
    float sum = frame[0];
    for (int c = 1; c < channels; ++c) sum += frame[c];
    out.push_back(static_cast<float>(static_cast<double>(sum) / channels));
  }
}

}  // namespace

Result<DecodedAudio> DecodeAudio(std::span<const uint8_t> bytes, const AudioDecodeOptions& o) {
  const Stopwatch clock;
  if (bytes.empty()) return Refused("empty input");
  if (static_cast<int64_t>(bytes.size()) > o.max_bytes) {
    return ResourceExhaustedError(fmt::format("audio: the file holds more than {} bytes", o.max_bytes));
  }
  GEMMAD_RETURN_IF_ERROR(CheckOggVorbisHeaders(bytes));  // before libsndfile: it leaks on bad ones
  MemoryFile mem{bytes.data(), static_cast<sf_count_t>(bytes.size()), 0};
  SF_VIRTUAL_IO vio{VioLength, VioSeek, VioRead, VioWrite, VioTell};
  SF_INFO info{};
  SndfilePtr file;
  {
    static std::mutex open_mutex;
    std::lock_guard<std::mutex> lock(open_mutex);
    file.reset(sf_open_virtual(&vio, SFM_READ, &info, &mem));
    if (file == nullptr) return Refused(fmt::format("unknown format or corrupt data ({})", OneLine(sf_strerror(nullptr))));
  }
  if (info.channels <= 0) return Refused("the file has no channels");
  if (info.samplerate <= 0) return Refused("the file has no sample rate");
  if (info.channels > o.max_channels) {
    return Refused(fmt::format("{} channels (at most {})", info.channels, o.max_channels));
  }
  if (info.samplerate > o.max_sample_rate) {
    return Refused(fmt::format("sample rate {} Hz (at most {})", info.samplerate, o.max_sample_rate));
  }
  const double rate = info.samplerate;
  const auto max_frames = static_cast<int64_t>(std::floor(o.max_seconds * rate));
  const auto keep_frames = o.keep_seconds > 0 ? static_cast<int64_t>(std::ceil(o.keep_seconds * rate)) : max_frames;
  // The header's count (absent: SF_COUNT_MAX or negative, e.g. a streamed MP3 or OGG).
  const bool header_known = info.frames >= 0 && info.frames < std::numeric_limits<sf_count_t>::max();
  auto too_long = [&](int64_t frames) {
    return ResourceExhaustedError(fmt::format("audio: longer than {} s ({:.3f} s or more)", o.max_seconds,
                                              static_cast<double>(frames) / rate));
  };
  if (header_known && info.frames > max_frames) return too_long(info.frames);

  DecodedAudio out;
  out.sample_rate = info.samplerate;
  out.channels = info.channels;
  out.format = FormatName(file.get(), info.format);
  out.samples.reserve(static_cast<size_t>(std::min<int64_t>(header_known ? info.frames : kChunkFrames, keep_frames)));
  std::vector<float> chunk(static_cast<size_t>(kChunkFrames * info.channels));  // [frames, channels]
  int64_t read = 0;
  for (;;) {
    if (o.cancelled && o.cancelled()) return CancelledError("audio: the request was cancelled");
    if (clock.Seconds() > o.max_decode_seconds) {
      return DeadlineExceededError(fmt::format("audio: decoding took more than {} s", o.max_decode_seconds));
    }
    const int64_t kept = static_cast<int64_t>(out.samples.size());
    // Past the kept part only a stream without a count is read on (to learn its duration).
    if (kept >= keep_frames && header_known) break;
    const sf_count_t n = sf_readf_float(file.get(), chunk.data(), kChunkFrames);
    if (sf_error(file.get()) != SF_ERR_NO_ERROR) {
      return Refused(fmt::format("corrupt or truncated data ({})", OneLine(sf_strerror(file.get()))));
    }
    if (n <= 0) break;
    read += n;
    if (read > max_frames) return too_long(read);
    const sf_count_t keep = std::min<sf_count_t>(n, std::max<int64_t>(keep_frames - kept, 0));
    AppendMono(chunk.data(), keep, info.channels, out.samples);
  }
  for (float x : out.samples) {
    if (!std::isfinite(x)) return Refused("the samples hold NaN or infinity");
  }
  // A count in the header that the stream does not reach (a truncated file) is not the duration.
  out.total_frames = header_known && static_cast<int64_t>(out.samples.size()) >= keep_frames
                         ? std::max<int64_t>(info.frames, read)
                         : read;
  return out;
}

}  // namespace gemmad::mm
