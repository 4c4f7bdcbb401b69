// SPDX-License-Identifier: MIT
// SCU image files (docs/scu.md 5): read, check and write them in user space. The layout's
// constants are the device model's (scenic/scu_image.hpp), so the card, the kernel's checks and
// this library agree on one definition.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace scenic {

// The kernel's image limit, SCENIC_SCU_MAX_IMAGE_LEN (asserted equal in image.cpp).
inline constexpr uint64_t kMaxImageBytes = 64ULL << 20;

// The load statuses of uapi/scenic_scu.h (enum scenic_scu_load_status), by the same numbers.
enum class LoadStatus : uint32_t {
    kOk = 0,
    kBadMagic = 1,
    kBadFormatVersion = 2,
    kBadHeader = 3,
    kBadIfaceVersion = 4,
    kUnknownKind = 5,
    kHashMismatch = 6,
    kBadDataWidth = 7,
    kNoResources = 8,
    kDrainTimeout = 9,
    kFixedSlot = 10,
    kTooLarge = 11,
    kCardError = 12,
    kReconfigFailed = 13,
};

// "OK", "BAD_MAGIC", ... as the header names them; "UNKNOWN(<n>)" for other numbers.
std::string load_status_name(uint32_t status);
// The errno the kernel returns with a status (ENOEXEC, ENOSPC, ...; 0 for OK).
int load_status_errno(LoadStatus status);

// Image header flags (offset 0x16).
enum ImageFlags : uint16_t {
    kImageMemoryPort = 1 << 0,
    kImageFrames = 1 << 1,
    kImageHasRtl = 1 << 2,
};

struct ImageResources {
    uint32_t luts = 0, ffs = 0, bram36 = 0, uram = 0, dsp = 0;
};

// Every header field an image carries.
struct ImageHeader {
    uint16_t format_version = 0;
    uint16_t header_size = 0;
    uint32_t iface_version = 0;  // major 31:16, minor 15:0
    uint32_t kind = 0;
    uint16_t kind_version = 0;
    uint16_t flags = 0;
    uint64_t build_id = 0;
    std::string name;
    uint32_t data_width = 0;
    ImageResources resources;
    uint32_t payload_offset = 0;
    uint64_t payload_size = 0;
    std::array<uint8_t, 32> payload_sha256{};
    uint32_t crc32 = 0;
};

// What a writer chooses; the rest (sizes, offsets, hash, CRC) follows from the payload.
struct ImageSpec {
    uint32_t kind = 0;
    uint16_t kind_version = 1;
    uint16_t flags = 0;
    uint64_t build_id = 0;
    std::string name;            // at most 31 bytes: the field is NUL-padded
    uint32_t iface_version = 0;  // 0: this library's (the card's default, 1.0)
    uint32_t data_width = 0;     // 0: the card's slot width (512)
    ImageResources resources;
};

struct ImageCheckOptions {
    uint32_t card_iface = 0;       // 0: the card's default interface version (1.0)
    uint32_t card_data_width = 0;  // 0: the card's default (512)
    uint64_t max_bytes = 0;        // 0: SCENIC_SCU_MAX_IMAGE_LEN (the kernel's limit)
};

// The result of a check: the status the card would give (statuses 1..7 and 11; UNKNOWN_KIND is
// the card's to decide), the field that failed, and the header as far as it could be read.
struct ImageCheck {
    LoadStatus status = LoadStatus::kOk;
    std::string detail;  // empty when OK
    ImageHeader header;
    bool header_read = false;  // header fields are valid (the file had 256 bytes and the magic)
    [[nodiscard]] bool ok() const { return status == LoadStatus::kOk; }
};

ImageCheck check_image(std::span<const uint8_t> bytes, const ImageCheckOptions& opt = {});

// A complete image: header, then the payload at offset 256. Throws std::invalid_argument on a
// name that does not fit or a payload above the kernel's limit.
std::vector<uint8_t> build_image(const ImageSpec& spec, std::span<const uint8_t> payload);

// A whole file, at most max_bytes (ScenicError EFBIG above, with errno on open/read failures).
std::vector<uint8_t> read_file(const std::string& path, uint64_t max_bytes);
// Writes atomically (a temporary file renamed over path). Throws ScenicError.
void write_file(const std::string& path, std::span<const uint8_t> bytes);

// Registry names (docs/scu.md 7): "passthrough", "aes128-ctr", ...; empty if not in the tree's
// list.
std::string_view kind_name(uint32_t kind);

// Lowercase hex of bytes.
std::string to_hex(std::span<const uint8_t> bytes);

}  // namespace scenic
