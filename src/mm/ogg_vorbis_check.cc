// CheckOggVorbisHeaders: libogg pages -> the first three packets of the first logical stream ->
// vorbis_synthesis_headerin, as libsndfile's Vorbis reader does, with every libogg/libvorbis
// structure cleared on every path.
#include "mm/ogg_vorbis_check.h"

#include <ogg/ogg.h>
#include <vorbis/codec.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

namespace gemmad::mm {
namespace {

// The headers sit in the first pages; a file whose three headers need more than this is refused.
constexpr size_t kMaxHeaderBytes = size_t{4} << 20;

struct OggReader {
  ogg_sync_state sync;
  ogg_stream_state stream;
  bool stream_open = false;
  vorbis_info info;
  vorbis_comment comment;

  OggReader() {
    ogg_sync_init(&sync);
    vorbis_info_init(&info);
    vorbis_comment_init(&comment);
  }
  ~OggReader() {
    vorbis_comment_clear(&comment);
    vorbis_info_clear(&info);
    if (stream_open) ogg_stream_clear(&stream);
    ogg_sync_clear(&sync);
  }
  OggReader(const OggReader&) = delete;
  OggReader& operator=(const OggReader&) = delete;

  // The next packet of the first logical stream; false at the end of the data.
  bool NextPacket(ogg_packet* packet) {
    for (;;) {
      if (stream_open && ogg_stream_packetout(&stream, packet) == 1) return true;
      ogg_page page;
      const int got = ogg_sync_pageout(&sync, &page);
      if (got < 0) continue;  // bytes skipped to the next capture pattern, as libsndfile's reader does
      if (got == 0) return false;
      if (!stream_open) {
        if (ogg_stream_init(&stream, ogg_page_serialno(&page)) != 0) return false;
        stream_open = true;
      }
      ogg_stream_pagein(&stream, &page);  // pages of other streams are ignored (serial mismatch)
    }
  }
};

Status Malformed(const std::string& why) {
  return InvalidArgumentError("audio: malformed Ogg Vorbis headers (" + why + ")");
}

}  // namespace

Status CheckOggVorbisHeaders(std::span<const uint8_t> bytes) {
  // Anywhere in the first bytes, not only at 0: libsndfile skips an ID3 tag (and libogg any
  // garbage) before the first page.
  const size_t n = std::min(bytes.size(), kMaxHeaderBytes);
  static constexpr std::string_view kCapture = "OggS";
  const std::string_view head(reinterpret_cast<const char*>(bytes.data()), n);
  if (head.find(kCapture) == std::string_view::npos) return OkStatus();
  OggReader r;
  char* buffer = ogg_sync_buffer(&r.sync, static_cast<long>(n));
  if (buffer == nullptr) return Malformed("no memory for the Ogg reader");
  std::memcpy(buffer, bytes.data(), n);
  ogg_sync_wrote(&r.sync, static_cast<long>(n));
  ogg_packet packet;
  if (!r.NextPacket(&packet)) return OkStatus();  // no complete page: libsndfile refuses it without Vorbis
  if (packet.bytes < 7 || std::memcmp(packet.packet, "\x01vorbis", 7) != 0) return OkStatus();  // not Vorbis
  if (!packet.b_o_s) return Malformed("the first packet has no beginning-of-stream bit");
  if (ogg_stream_packetpeek(&r.stream, nullptr) == 1) return Malformed("extra packets on the first page");
  if (vorbis_synthesis_headerin(&r.info, &r.comment, &packet) < 0) return Malformed("identification header");
  for (const char* which : {"comment header", "setup header"}) {
    if (!r.NextPacket(&packet)) return Malformed(std::string("missing ") + which);
    if (vorbis_synthesis_headerin(&r.info, &r.comment, &packet) < 0) return Malformed(which);
  }
  return OkStatus();
}

}  // namespace gemmad::mm
