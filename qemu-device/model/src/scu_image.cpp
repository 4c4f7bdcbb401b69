// SPDX-License-Identifier: MIT
#include "scenic/scu_image.hpp"

#include <zlib.h>

#include <algorithm>

#include "scenic/sha256.hpp"

namespace scenic::scu {

namespace {

bool zero(std::span<const uint8_t> b, size_t off, size_t len) {
    const auto s = b.subspan(off, len);
    return std::all_of(s.begin(), s.end(), [](uint8_t x) { return x == 0; });
}

}  // namespace

uint32_t image_header_crc(std::span<const uint8_t, kImageHeaderBytes> header) {
    return static_cast<uint32_t>(crc32(0L, header.data(), static_cast<uInt>(image::kCrc)));
}

admin::ScuStatus parse_image(std::span<const uint8_t> b, uint32_t max_bytes, uint32_t card_iface,
                             ImageInfo& out) {
    using admin::ScuStatus;
    if (b.size() < kImageHeaderBytes || b.size() > max_bytes) {
        return ScuStatus::kTooLarge;
    }
    if (!std::equal(kImageMagic.begin(), kImageMagic.end(), b.begin()) ||
        image_le<uint16_t>(b, image::kFormat) != kImageFormatVersion) {
        return ScuStatus::kBadImage;
    }
    const uint16_t hsize = image_le<uint16_t>(b, image::kHeaderSize);
    if (hsize < kImageHeaderBytes || hsize > b.size() ||
        image_le<uint32_t>(b, image::kCrc) != image_header_crc(b.first<kImageHeaderBytes>())) {
        return ScuStatus::kBadImage;
    }
    // Reserved: 0x58..0x5f, 0x64..0x67, 0x90..0xfb.
    if (!zero(b, 0x58, 8) || !zero(b, 0x64, 4) || !zero(b, 0x90, 0xfc - 0x90)) {
        return ScuStatus::kBadImage;
    }
    const uint32_t poff = image_le<uint32_t>(b, image::kPayloadOffset);
    const uint64_t psize = image_le<uint64_t>(b, image::kPayloadSize);
    if (poff < hsize || (poff & 7) != 0 || poff > b.size() || psize > b.size() - poff ||
        image_le<uint32_t>(b, image::kDataW) != kDataWidth) {
        return ScuStatus::kBadImage;
    }
    const Sha256Digest want = sha256(b.subspan(poff, static_cast<size_t>(psize)));
    if (!std::equal(want.begin(), want.end(), b.begin() + image::kSha256)) {
        return ScuStatus::kBadImage;
    }
    const uint32_t iface = image_le<uint32_t>(b, image::kIface);
    if ((iface >> 16) != (card_iface >> 16) || (iface & 0xffff) > (card_iface & 0xffff)) {
        return ScuStatus::kBadIface;
    }
    out = {image_le<uint32_t>(b, image::kKind),
           image_le<uint16_t>(b, image::kKindVersion),
           image_le<uint16_t>(b, image::kFlags),
           image_le<uint64_t>(b, image::kBuildId),
           iface,
           poff,
           psize};
    return ScuStatus::kOk;
}

}  // namespace scenic::scu
