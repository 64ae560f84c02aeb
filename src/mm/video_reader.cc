// FFmpeg demuxing and decoding of one video stream from memory (video_reader.h).
#include "mm/video_reader.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <mutex>

#include "mm/video_sampling.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/log.h>
}

namespace gemmad::mm {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kAvioBufferSize = 1 << 16;
// Demuxers allowed (AVInputFormat names). Each creates its streams while reading the header, so
// the stream set is fixed before avformat_find_stream_info decodes anything (see Open). Not
// listed: flv and MPEG-PS (their streams appear mid-file), image sequences, playlists, and
// everything that is not a video container.
constexpr char kFormatWhitelist[] = "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,avi,gif,ogg,mpegts,ivf,obu,h264,hevc,m4v";
// Decoders allowed, by name (also applies to the decoders avformat_find_stream_info opens).
constexpr char kDecoderWhitelist[] =
    "h264,hevc,vp8,vp9,libdav1d,av1,mpeg4,mpeg1video,mpeg2video,h263,mjpeg,gif,theora,prores";
constexpr AVCodecID kVideoCodecs[] = {
    AV_CODEC_ID_H264,       AV_CODEC_ID_HEVC,       AV_CODEC_ID_VP8,  AV_CODEC_ID_VP9,   AV_CODEC_ID_AV1,
    AV_CODEC_ID_MPEG4,      AV_CODEC_ID_MPEG1VIDEO, AV_CODEC_ID_MPEG2VIDEO, AV_CODEC_ID_H263,
    AV_CODEC_ID_MJPEG,      AV_CODEC_ID_GIF,        AV_CODEC_ID_THEORA, AV_CODEC_ID_PRORES,
};
// OpenCV's eps_zero: a frame rate or duration below it counts as absent.
constexpr double kEpsZero = 0.000025;
// Decode errors tolerated (each marks the video damaged) before the stream is taken as ended.
constexpr int kMaxDecodeErrors = 512;

// libav's log goes nowhere; while a reader reads frames, warnings and errors logged on its thread
// (e.g. matroska's "File ended prematurely", which comes with no error code) mark it damaged.
thread_local int* t_log_problems = nullptr;

void CountingLog(void*, int level, const char*, va_list) {
  if (level <= AV_LOG_WARNING && t_log_problems != nullptr) ++*t_log_problems;
}

void SilenceLibav() {
  static std::once_flag once;
  std::call_once(once, [] {
    av_log_set_level(AV_LOG_WARNING);  // only for code that asks; the callback prints nothing
    av_log_set_callback(&CountingLog);
  });
}

class CountLogProblems {
 public:
  explicit CountLogProblems(int* counter) : previous_(t_log_problems) { t_log_problems = counter; }
  ~CountLogProblems() { t_log_problems = previous_; }
  CountLogProblems(const CountLogProblems&) = delete;
  CountLogProblems& operator=(const CountLogProblems&) = delete;

 private:
  int* previous_;
};

double R2d(AVRational r) { return r.num == 0 || r.den == 0 ? 0.0 : static_cast<double>(r.num) / r.den; }

bool AllowedCodec(AVCodecID id) {
  for (AVCodecID c : kVideoCodecs) {
    if (c == id) return true;
  }
  return false;
}

Status TooLarge(int64_t w, int64_t h, int64_t max_pixels) {
  return InvalidArgumentError(fmt::format("video: frame size {}x{} ({} pixels) exceeds the limit of {} pixels", w, h,
                                          w * h, max_pixels));
}

}  // namespace

struct VideoReader::State {
  std::span<const uint8_t> bytes;
  int64_t pos = 0;
  Clock::time_point deadline;
  AVFormatContext* fmt = nullptr;
  AVIOContext* avio = nullptr;
  AVCodecContext* dec = nullptr;
  AVPacket* pkt = nullptr;
  AVFrame* frame = nullptr;
  int stream = -1;
  bool flushed = false;  // the decoder has been sent its end-of-stream packet
  int decode_errors = 0;

  bool Expired() const { return Clock::now() > deadline; }

  ~State() {
    av_frame_free(&frame);
    av_packet_free(&pkt);
    avcodec_free_context(&dec);
    avformat_close_input(&fmt);  // leaves the custom AVIOContext alone (AVFMT_FLAG_CUSTOM_IO)
    if (avio != nullptr) {
      av_freep(&avio->buffer);
      avio_context_free(&avio);
    }
  }

  static int Read(void* opaque, uint8_t* buf, int buf_size) {
    auto* s = static_cast<State*>(opaque);
    if (s->Expired()) return AVERROR_EXIT;
    const int64_t left = static_cast<int64_t>(s->bytes.size()) - s->pos;
    if (left <= 0 || buf_size <= 0) return AVERROR_EOF;
    const int n = static_cast<int>(std::min<int64_t>(buf_size, left));
    std::memcpy(buf, s->bytes.data() + s->pos, static_cast<size_t>(n));
    s->pos += n;
    return n;
  }

  static int64_t Seek(void* opaque, int64_t offset, int whence) {
    auto* s = static_cast<State*>(opaque);
    const int64_t size = static_cast<int64_t>(s->bytes.size());
    whence &= ~AVSEEK_FORCE;
    if (whence == AVSEEK_SIZE) return size;
    int64_t base = 0;
    if (whence == SEEK_SET) {
      base = 0;
    } else if (whence == SEEK_CUR) {
      base = s->pos;
    } else if (whence == SEEK_END) {
      base = size;
    } else {
      return AVERROR(EINVAL);
    }
    if (offset > size - base || offset < -base) return AVERROR(EINVAL);  // outside [0, size]
    s->pos = base + offset;
    return s->pos;
  }

  static int Interrupt(void* opaque) { return static_cast<State*>(opaque)->Expired() ? 1 : 0; }

  static int RefuseOpen(AVFormatContext*, AVIOContext**, const char*, int, AVDictionary**) { return AVERROR(EPERM); }
};

VideoReader::VideoReader(std::unique_ptr<State> state) : s_(std::move(state)) {}
VideoReader::~VideoReader() = default;

Status VideoReader::DeadlineError() const {
  return InvalidArgumentError(fmt::format("video: decoding took longer than the limit of {} s", time_limit_s_));
}

Result<std::unique_ptr<VideoReader>> VideoReader::Open(std::span<const uint8_t> bytes,
                                                       const VideoReaderOptions& options) {
  SilenceLibav();
  if (bytes.empty()) return InvalidArgumentError("video: the input is empty");
  auto s = std::make_unique<State>();
  s->bytes = bytes;
  s->deadline = options.deadline;
  std::unique_ptr<VideoReader> reader(new VideoReader(std::move(s)));
  reader->time_limit_s_ = options.time_limit_s;
  State& st = *reader->s_;

  st.fmt = avformat_alloc_context();
  auto* buf = static_cast<uint8_t*>(av_malloc(kAvioBufferSize));
  if (buf != nullptr) st.avio = avio_alloc_context(buf, kAvioBufferSize, 0, &st, &State::Read, nullptr, &State::Seek);
  st.pkt = av_packet_alloc();
  st.frame = av_frame_alloc();
  if (st.fmt == nullptr || st.avio == nullptr || st.pkt == nullptr || st.frame == nullptr) {
    if (st.avio == nullptr) av_free(buf);
    return ResourceExhaustedError("video: out of memory");
  }
  st.fmt->pb = st.avio;
  st.fmt->flags |= AVFMT_FLAG_CUSTOM_IO;
  st.fmt->interrupt_callback = {&State::Interrupt, &st};
  st.fmt->io_open = &State::RefuseOpen;
  AVDictionary* fmt_opts = nullptr;
  av_dict_set(&fmt_opts, "format_whitelist", kFormatWhitelist, 0);
  av_dict_set(&fmt_opts, "codec_whitelist", kDecoderWhitelist, 0);
  int ret = avformat_open_input(&st.fmt, nullptr, nullptr, &fmt_opts);  // frees st.fmt on failure
  av_dict_free(&fmt_opts);
  if (ret == AVERROR_EXIT || st.Expired()) return reader->DeadlineError();
  if (ret < 0) {
    return InvalidArgumentError(
        "video: cannot read the container (not a video, an unsupported format or truncated data; supported: "
        "mp4/mov, webm/mkv, avi, gif, ogg, mpeg-ts, ivf, raw h264/hevc/mpeg4/av1)");
  }
  // No stream may appear after this point: avformat_find_stream_info decodes frames, and only the
  // streams it is given options for get the pixel bound.
  const unsigned num_streams = st.fmt->nb_streams;
  st.fmt->max_streams = static_cast<int>(std::max(1u, num_streams));
  for (unsigned i = 0; i < num_streams; ++i) {
    const AVCodecParameters* par = st.fmt->streams[i]->codecpar;
    if (par->codec_type == AVMEDIA_TYPE_VIDEO && int64_t{par->width} * par->height > options.max_pixels) {
      return TooLarge(par->width, par->height, options.max_pixels);
    }
  }
  std::vector<AVDictionary*> stream_opts(num_streams, nullptr);
  for (auto& d : stream_opts) {
    av_dict_set_int(&d, "max_pixels", options.max_pixels, 0);
    av_dict_set(&d, "threads", "1", 0);
  }
  ret = avformat_find_stream_info(st.fmt, stream_opts.empty() ? nullptr : stream_opts.data());
  for (auto& d : stream_opts) av_dict_free(&d);
  if (ret == AVERROR_EXIT || st.Expired()) return reader->DeadlineError();
  if (ret < 0) return InvalidArgumentError("video: cannot read the stream information (corrupt or truncated data)");

  for (unsigned i = 0; i < st.fmt->nb_streams; ++i) {
    const AVStream* s = st.fmt->streams[i];
    if (s->codecpar->codec_type == AVMEDIA_TYPE_VIDEO && (s->disposition & AV_DISPOSITION_ATTACHED_PIC) == 0) {
      st.stream = static_cast<int>(i);
      break;
    }
  }
  if (st.stream < 0) return InvalidArgumentError("video: the file has no video stream");
  AVStream* vs = st.fmt->streams[st.stream];
  for (unsigned i = 0; i < st.fmt->nb_streams; ++i) {
    if (static_cast<int>(i) != st.stream) st.fmt->streams[i]->discard = AVDISCARD_ALL;
  }
  const AVCodecParameters* par = vs->codecpar;
  if (!AllowedCodec(par->codec_id)) {
    return InvalidArgumentError(fmt::format("video: unsupported video codec '{}'", avcodec_get_name(par->codec_id)));
  }
  if (int64_t{par->width} * par->height > options.max_pixels) {
    return TooLarge(par->width, par->height, options.max_pixels);
  }
  if (par->width <= 0 || par->height <= 0) {
    return InvalidArgumentError("video: the video stream has no frame size (corrupt or truncated data)");
  }
  const AVCodec* codec = avcodec_find_decoder(par->codec_id);
  if (codec == nullptr) {
    return InvalidArgumentError(fmt::format("video: unsupported video codec '{}'", avcodec_get_name(par->codec_id)));
  }
  st.dec = avcodec_alloc_context3(codec);
  if (st.dec == nullptr) return ResourceExhaustedError("video: out of memory");
  if (avcodec_parameters_to_context(st.dec, par) < 0) {
    return InvalidArgumentError("video: invalid codec parameters (corrupt data)");
  }
  st.dec->thread_count = std::max(1, options.threads);
  st.dec->max_pixels = options.max_pixels;
  st.dec->pkt_timebase = vs->time_base;
  if (avcodec_open2(st.dec, codec, nullptr) < 0) {
    return InvalidArgumentError(fmt::format("video: cannot open the '{}' decoder for this stream", codec->name));
  }

  reader->width_ = par->width;
  reader->height_ = par->height;
  // The facts OpenCV's capture reports (CvCapture_FFMPEG::get_fps / get_duration_sec /
  // get_total_frames / get_rotation_angle).
  double fps = R2d(vs->avg_frame_rate);
  if (fps < kEpsZero) fps = 1.0 / R2d(vs->time_base);
  reader->fps_ = std::isfinite(fps) && fps > 0 ? fps : 0.0;
  double duration_s = static_cast<double>(st.fmt->duration) / AV_TIME_BASE;
  if (duration_s < kEpsZero) duration_s = static_cast<double>(vs->duration) * R2d(vs->time_base);
  reader->reported_frames_ = ReportedFrameCount(vs->nb_frames, duration_s, reader->fps_);
  size_t matrix_size = 0;
  const uint8_t* matrix = av_stream_get_side_data(vs, AV_PKT_DATA_DISPLAYMATRIX, &matrix_size);
  if (matrix != nullptr && matrix_size >= 9 * sizeof(int32_t)) {
    const double angle = av_display_rotation_get(reinterpret_cast<const int32_t*>(matrix));
    if (std::isfinite(angle)) {
      long r = -std::lround(angle);
      if (r < 0) r += 360;
      if (r == 90 || r == 180 || r == 270) reader->rotation_ = static_cast<int>(r);
    }
  }
  return reader;
}

Result<const AVFrame*> VideoReader::Next() {
  State& st = *s_;
  CountLogProblems count(&log_problems_);
  while (true) {
    if (st.Expired()) return DeadlineError();
    int ret = avcodec_receive_frame(st.dec, st.frame);
    if (ret >= 0) {
      if (int64_t{st.frame->width} * st.frame->height > st.dec->max_pixels) {
        return TooLarge(st.frame->width, st.frame->height, st.dec->max_pixels);
      }
      return static_cast<const AVFrame*>(st.frame);
    }
    if (ret == AVERROR_EOF) return static_cast<const AVFrame*>(nullptr);
    if (ret != AVERROR(EAGAIN)) {  // a decode error: keep going, as OpenCV and ffmpeg do
      damaged_ = true;
      if (++st.decode_errors > kMaxDecodeErrors) return static_cast<const AVFrame*>(nullptr);
      continue;
    }
    if (st.flushed) return static_cast<const AVFrame*>(nullptr);  // EAGAIN after the flush: nothing more
    ret = av_read_frame(st.fmt, st.pkt);
    if (ret == AVERROR_EXIT) return DeadlineError();
    if (ret < 0) {
      if (ret != AVERROR_EOF) damaged_ = true;
      st.flushed = true;
      avcodec_send_packet(st.dec, nullptr);
      continue;
    }
    if (st.pkt->stream_index == st.stream) {
      if ((st.pkt->flags & AV_PKT_FLAG_CORRUPT) != 0) damaged_ = true;
      ret = avcodec_send_packet(st.dec, st.pkt);
      if (ret < 0 && ret != AVERROR(EAGAIN)) {
        damaged_ = true;
        ++st.decode_errors;
      }
    }
    av_packet_unref(st.pkt);
    if (st.decode_errors > kMaxDecodeErrors) return static_cast<const AVFrame*>(nullptr);
  }
}

}  // namespace gemmad::mm
