// CheckOggVorbisHeaders: the three Vorbis header packets of an Ogg stream, checked with libvorbis
// before libsndfile sees the file. libsndfile 1.2 leaks the Vorbis decoder's setup (~6 KB,
// vorbis_info_init without vorbis_info_clear) when those headers are malformed, so a stream of
// such uploads would grow the server without bound; rejecting them here first keeps that path out
// of libsndfile. The first Ogg page is looked for anywhere in the first 4 MiB (libsndfile skips an
// ID3 tag, libogg any garbage, before it). Streams whose first packet is not a Vorbis
// identification header (Opus, FLAC in Ogg) and data without an Ogg page pass unchecked.
#pragma once

#include <cstdint>
#include <span>

#include "base/status.h"

namespace gemmad::mm {

// OK, or InvalidArgument "audio: malformed Ogg Vorbis headers (...)".
Status CheckOggVorbisHeaders(std::span<const uint8_t> bytes);

}  // namespace gemmad::mm
