// HashFloatContent: the 128-bit content hash of preprocessed media (the prefix cache's key for an
// item's tokens): the first 16 bytes of sha256(header + hex sha256 of the values' bytes). The
// header names what the values are (modality, shape, settings); the values are hashed in place.
#pragma once

#include <span>
#include <string_view>

#include "mm/item.h"

namespace gemmad::mm {

ContentHash HashFloatContent(std::string_view header, std::span<const float> values);

}  // namespace gemmad::mm
