// SPDX-License-Identifier: MIT
// The SCU image header (docs/scu.md 5): the partial bitstream's stand-in, parsed and checked
// before a slot is touched. A refused image leaves the slot as it was.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "scenic/admin.hpp"

namespace scenic::scu {

inline constexpr size_t kImageHeaderBytes = 256;

// A little-endian field of an image header; the caller has checked that it lies inside b.
template <typename T>
T image_le(std::span<const uint8_t> b, size_t off) {
    T v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) {
        v = static_cast<T>(v | (static_cast<T>(b[off + i]) << (8 * i)));
    }
    return v;
}
inline constexpr std::array<uint8_t, 8> kImageMagic{'S', 'C', 'E', 'N', 'S', 'C', 'U', 0};
inline constexpr uint16_t kImageFormatVersion = 1;
inline constexpr uint32_t kDataWidth = 512;  // the model's slot stream width (U55C, 100G)

// Header field offsets.
namespace image {
inline constexpr size_t kMagic = 0x00;
inline constexpr size_t kFormat = 0x08;
inline constexpr size_t kHeaderSize = 0x0a;
inline constexpr size_t kIface = 0x0c;
inline constexpr size_t kKind = 0x10;
inline constexpr size_t kKindVersion = 0x14;
inline constexpr size_t kFlags = 0x16;
inline constexpr size_t kBuildId = 0x18;
inline constexpr size_t kName = 0x20;
inline constexpr size_t kDataW = 0x40;
inline constexpr size_t kLuts = 0x44;  // resource figures (yosys), informational on the card
inline constexpr size_t kFfs = 0x48;
inline constexpr size_t kBram36 = 0x4c;
inline constexpr size_t kUram = 0x50;
inline constexpr size_t kDsp = 0x54;
inline constexpr size_t kPayloadOffset = 0x60;
inline constexpr size_t kPayloadSize = 0x68;
inline constexpr size_t kSha256 = 0x70;
inline constexpr size_t kCrc = 0xfc;
inline constexpr size_t kNameBytes = 32;
// Reserved (must be zero): {offset, length}.
inline constexpr std::array<std::array<size_t, 2>, 3> kReserved{
    {{0x58, 8}, {0x64, 4}, {0x90, 0x6c}}};
}  // namespace image

struct ImageInfo {
    uint32_t kind = 0;
    uint16_t kind_version = 0;
    uint16_t flags = 0;
    uint64_t build_id = 0;
    uint32_t iface = 0;
    uint64_t payload_offset = 0;
    uint64_t payload_size = 0;
    bool builtin = false;  // the card's own passthrough, not from an image
};

// Checks size (TOO_LARGE against max_bytes), then magic, format, header size, CRC-32, reserved
// bytes, payload bounds, data width and the payload's SHA-256 (BAD_IMAGE), then the interface
// version against the card's (BAD_IFACE). The kind is the caller's (the registry).
admin::ScuStatus parse_image(std::span<const uint8_t> bytes, uint32_t max_bytes,
                             uint32_t card_iface, ImageInfo& out);

// The CRC-32 (zlib's) of a header's bytes 0x00..0xfb, for writers of images.
uint32_t image_header_crc(std::span<const uint8_t, kImageHeaderBytes> header);

}  // namespace scenic::scu
