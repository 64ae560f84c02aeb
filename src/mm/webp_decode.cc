// WebP through libwebp, as PIL's WebPImagePlugin does it: the mode is RGBA when WebPGetFeatures
// reports alpha and RGB otherwise (RGBA is then composited onto white, vLLM's rgba_to_rgb);
// pixels come from libwebp's default RGBA decode (fancy upsampling for lossy). Animated files go
// through WebPAnimDecoder like PIL's and give the first frame on its transparent canvas. Stills
// are decoded straight into the output (PIL's anim decoder writes a lone key frame the same way).
#include <webp/decode.h>
#include <webp/demux.h>

#include <fmt/format.h>

#include <cstring>
#include <memory>
#include <vector>

#include "mm/image_decode_internal.h"

namespace gemmad::mm::internal {

namespace {

struct AnimDecoderDeleter {
  void operator()(WebPAnimDecoder* d) const { WebPAnimDecoderDelete(d); }
};
struct DemuxDeleter {
  void operator()(WebPDemuxer* d) const { WebPDemuxDelete(d); }
};

Status WebpStatusError(VP8StatusCode code) {
  switch (code) {
    case VP8_STATUS_NOT_ENOUGH_DATA: return TruncatedError("WebP");
    case VP8_STATUS_UNSUPPORTED_FEATURE: return CorruptError("WebP", "unsupported feature");
    case VP8_STATUS_OUT_OF_MEMORY: return CorruptError("WebP", "out of memory");
    default: return CorruptError("WebP", fmt::format("libwebp status {}", static_cast<int>(code)));
  }
}

Result<Image> DecodeStill(std::span<const uint8_t> bytes, const WebPBitstreamFeatures& features) {
  WebPDecoderConfig config;
  if (!WebPInitDecoderConfig(&config)) return CorruptError("WebP", "libwebp version mismatch");
  Image image = NewImage(static_cast<uint64_t>(features.width), static_cast<uint64_t>(features.height));
  std::vector<uint8_t> rgba;
  const size_t pixels = image.rgb.size() / 3;
  WebPRGBABuffer& out = config.output.u.RGBA;
  config.output.is_external_memory = 1;
  if (features.has_alpha) {
    rgba.resize(pixels * 4);
    config.output.colorspace = MODE_RGBA;
    out.rgba = rgba.data();
    out.stride = features.width * 4;
    out.size = rgba.size();
  } else {
    config.output.colorspace = MODE_RGB;
    out.rgba = image.rgb.data();
    out.stride = features.width * 3;
    out.size = image.rgb.size();
  }
  VP8StatusCode code = WebPDecode(bytes.data(), bytes.size(), &config);
  WebPFreeDecBuffer(&config.output);  // external memory: frees nothing of ours
  if (code != VP8_STATUS_OK) return WebpStatusError(code);
  if (features.has_alpha) RgbaOverWhite(rgba.data(), pixels, image.rgb.data());
  return image;
}

Result<Image> DecodeFirstFrame(std::span<const uint8_t> bytes, const WebPBitstreamFeatures& features) {
  WebPData data{bytes.data(), bytes.size()};
  WebPDemuxState state = WEBP_DEMUX_PARSE_ERROR;
  std::unique_ptr<WebPDemuxer, DemuxDeleter> demux(WebPDemuxPartial(&data, &state));
  if (state != WEBP_DEMUX_DONE) {
    return state == WEBP_DEMUX_PARSE_ERROR ? CorruptError("WebP", "bad container") : TruncatedError("WebP");
  }
  demux.reset();
  WebPAnimDecoderOptions options;
  if (!WebPAnimDecoderOptionsInit(&options)) return CorruptError("WebP", "libwebp version mismatch");
  options.color_mode = MODE_RGBA;
  options.use_threads = 0;
  std::unique_ptr<WebPAnimDecoder, AnimDecoderDeleter> dec(WebPAnimDecoderNew(&data, &options));
  if (!dec) return CorruptError("WebP", "bad animation");
  WebPAnimInfo info;
  if (!WebPAnimDecoderGetInfo(dec.get(), &info) || info.canvas_width != static_cast<uint32_t>(features.width) ||
      info.canvas_height != static_cast<uint32_t>(features.height)) {
    return CorruptError("WebP", "inconsistent canvas size");
  }
  uint8_t* frame = nullptr;
  int timestamp = 0;
  if (!WebPAnimDecoderGetNext(dec.get(), &frame, &timestamp)) return CorruptError("WebP", "bad first frame");
  Image image = NewImage(info.canvas_width, info.canvas_height);
  const size_t pixels = image.rgb.size() / 3;
  if (features.has_alpha) {
    RgbaOverWhite(frame, pixels, image.rgb.data());
  } else {
    for (size_t i = 0; i < pixels; ++i) std::memcpy(image.rgb.data() + 3 * i, frame + 4 * i, 3);
  }
  return image;
}

}  // namespace

Result<Image> DecodeWebp(std::span<const uint8_t> bytes, const ImageDecodeLimits& limits) {
  WebPBitstreamFeatures features;
  VP8StatusCode code = WebPGetFeatures(bytes.data(), bytes.size(), &features);
  if (code != VP8_STATUS_OK) return WebpStatusError(code);
  if (features.width < 0 || features.height < 0) return CorruptError("WebP", "negative size");
  if (Status s = CheckDimensions("WebP", static_cast<uint64_t>(features.width),
                                 static_cast<uint64_t>(features.height), limits);
      !s.ok()) {
    return s;
  }
  return features.has_animation ? DecodeFirstFrame(bytes, features) : DecodeStill(bytes, features);
}

}  // namespace gemmad::mm::internal
