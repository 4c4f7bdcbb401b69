// SPDX-License-Identifier: MIT
// Image checks in the order of docs/scu.md 4.1, with the field that failed named. The layout
// and the CRC/hash are the device model's; the model's own parser runs last, so an image this
// file accepts is one the emulated card accepts too.
#include "scenic/image.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "scenic/error.hpp"
#include "scenic/scu_image.hpp"
#include "scenic/sha256.hpp"
#include "uapi/scenic_scu.h"

namespace scenic {

namespace {

static_assert(kMaxImageBytes == SCENIC_SCU_MAX_IMAGE_LEN);

namespace img = scu::image;
constexpr size_t kHdr = scu::kImageHeaderBytes;
constexpr uint32_t kCardIface = 0x00010000;  // docs/scu.md: this interface is 1.0

template <typename T>
void put(std::span<uint8_t> b, size_t off, T v) {
    for (size_t i = 0; i < sizeof(T); ++i) {
        b[off + i] = static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * i));
    }
}

ImageHeader read_header(std::span<const uint8_t> b) {
    ImageHeader h;
    h.format_version = scu::image_le<uint16_t>(b, img::kFormat);
    h.header_size = scu::image_le<uint16_t>(b, img::kHeaderSize);
    h.iface_version = scu::image_le<uint32_t>(b, img::kIface);
    h.kind = scu::image_le<uint32_t>(b, img::kKind);
    h.kind_version = scu::image_le<uint16_t>(b, img::kKindVersion);
    h.flags = scu::image_le<uint16_t>(b, img::kFlags);
    h.build_id = scu::image_le<uint64_t>(b, img::kBuildId);
    const auto name = b.subspan(img::kName, img::kNameBytes);
    h.name.assign(name.begin(), std::find(name.begin(), name.end(), uint8_t{0}));
    h.data_width = scu::image_le<uint32_t>(b, img::kDataW);
    h.resources = {scu::image_le<uint32_t>(b, img::kLuts), scu::image_le<uint32_t>(b, img::kFfs),
                   scu::image_le<uint32_t>(b, img::kBram36), scu::image_le<uint32_t>(b, img::kUram),
                   scu::image_le<uint32_t>(b, img::kDsp)};
    h.payload_offset = scu::image_le<uint32_t>(b, img::kPayloadOffset);
    h.payload_size = scu::image_le<uint64_t>(b, img::kPayloadSize);
    std::copy_n(b.begin() + img::kSha256, h.payload_sha256.size(), h.payload_sha256.begin());
    h.crc32 = scu::image_le<uint32_t>(b, img::kCrc);
    return h;
}

std::string version_str(uint32_t v) {
    return std::to_string(v >> 16) + "." + std::to_string(v & 0xffff);
}

}  // namespace

std::string load_status_name(uint32_t status) {
    static constexpr std::array<std::string_view, 14> kNames{"OK",
                                                             "BAD_MAGIC",
                                                             "BAD_FORMAT_VERSION",
                                                             "BAD_HEADER",
                                                             "BAD_IFACE_VERSION",
                                                             "UNKNOWN_KIND",
                                                             "HASH_MISMATCH",
                                                             "BAD_DATA_WIDTH",
                                                             "NO_RESOURCES",
                                                             "DRAIN_TIMEOUT",
                                                             "FIXED_SLOT",
                                                             "TOO_LARGE",
                                                             "CARD_ERROR",
                                                             "RECONFIG_FAILED"};
    if (status < kNames.size()) {
        return std::string(kNames[status]);
    }
    return "UNKNOWN(" + std::to_string(status) + ")";
}

int load_status_errno(LoadStatus s) {
    switch (s) {
        case LoadStatus::kOk:
            return 0;
        case LoadStatus::kNoResources:
            return ENOSPC;
        case LoadStatus::kDrainTimeout:
            return ETIMEDOUT;
        case LoadStatus::kFixedSlot:
            return EPERM;
        case LoadStatus::kTooLarge:
            return EFBIG;
        case LoadStatus::kCardError:
        case LoadStatus::kReconfigFailed:
            return EIO;
        default:
            return ENOEXEC;
    }
}

ImageCheck check_image(std::span<const uint8_t> b, const ImageCheckOptions& opt) {
    ImageCheck r;
    const auto fail = [&r](LoadStatus s, std::string why) {
        r.status = s;
        r.detail = std::move(why);
        return r;
    };
    const uint64_t max = opt.max_bytes ? opt.max_bytes : SCENIC_SCU_MAX_IMAGE_LEN;
    const uint32_t iface = opt.card_iface ? opt.card_iface : kCardIface;
    const uint32_t width = opt.card_data_width ? opt.card_data_width : scu::kDataWidth;
    if (b.size() > max) {
        return fail(LoadStatus::kTooLarge,
                    std::to_string(b.size()) + " bytes, the limit is " + std::to_string(max));
    }
    if (b.size() < scu::kImageMagic.size() ||
        !std::equal(scu::kImageMagic.begin(), scu::kImageMagic.end(), b.begin())) {
        return fail(LoadStatus::kBadMagic, "magic is not \"SCENSCU\\0\": not an SCU image");
    }
    if (b.size() < kHdr) {
        return fail(LoadStatus::kBadHeader,
                    std::to_string(b.size()) + " bytes, shorter than the 256-byte header");
    }
    r.header = read_header(b);
    r.header_read = true;
    const ImageHeader& h = r.header;
    if (h.format_version != scu::kImageFormatVersion) {
        return fail(LoadStatus::kBadFormatVersion,
                    "format version " + std::to_string(h.format_version) + ", expected " +
                        std::to_string(scu::kImageFormatVersion));
    }
    if (h.header_size < kHdr || h.header_size > b.size()) {
        return fail(LoadStatus::kBadHeader, "header size " + std::to_string(h.header_size));
    }
    if (h.crc32 != scu::image_header_crc(b.first<kHdr>())) {
        return fail(LoadStatus::kBadHeader, "header CRC-32 mismatch");
    }
    for (const auto& [off, len] : scu::image::kReserved) {
        const auto s = b.subspan(off, len);
        if (!std::all_of(s.begin(), s.end(), [](uint8_t x) { return x == 0; })) {
            char at[16];
            std::snprintf(at, sizeof(at), "0x%zx", off);
            return fail(LoadStatus::kBadHeader,
                        std::string("reserved bytes at ") + at + " are not zero");
        }
    }
    if (h.payload_offset < h.header_size || (h.payload_offset & 7) != 0 ||
        h.payload_offset > b.size() || h.payload_size > b.size() - h.payload_offset) {
        return fail(LoadStatus::kBadHeader, "payload (offset " + std::to_string(h.payload_offset) +
                                                ", " + std::to_string(h.payload_size) +
                                                " bytes) is not inside the " +
                                                std::to_string(b.size()) + "-byte file");
    }
    if ((h.iface_version >> 16) != (iface >> 16) || (h.iface_version & 0xffff) > (iface & 0xffff)) {
        return fail(LoadStatus::kBadIfaceVersion, "built for slot interface " +
                                                      version_str(h.iface_version) +
                                                      ", the card has " + version_str(iface));
    }
    if (h.data_width != width) {
        return fail(LoadStatus::kBadDataWidth, "built for " + std::to_string(h.data_width) +
                                                   "-bit streams, the card has " +
                                                   std::to_string(width));
    }
    const auto payload = b.subspan(h.payload_offset, static_cast<size_t>(h.payload_size));
    const Sha256Digest got = sha256(payload);
    if (!std::equal(got.begin(), got.end(), h.payload_sha256.begin())) {
        return fail(LoadStatus::kHashMismatch, "payload SHA-256 is " + to_hex(got) +
                                                   ", the header says " + to_hex(h.payload_sha256));
    }
    // The card's own parser, as the last word (same limits as above).
    scu::ImageInfo info;
    if (max <= std::numeric_limits<uint32_t>::max() && width == scu::kDataWidth &&
        scu::parse_image(b, static_cast<uint32_t>(max), iface, info) != admin::ScuStatus::kOk) {
        return fail(LoadStatus::kBadHeader, "refused by the card's image parser");
    }
    return r;
}

std::vector<uint8_t> build_image(const ImageSpec& spec, std::span<const uint8_t> payload) {
    if (spec.name.size() >= img::kNameBytes) {
        throw std::invalid_argument("SCU name '" + spec.name + "' is longer than 31 bytes");
    }
    if (payload.size() > SCENIC_SCU_MAX_IMAGE_LEN - kHdr) {
        throw std::invalid_argument("payload of " + std::to_string(payload.size()) +
                                    " bytes: an image is at most 64 MiB");
    }
    std::vector<uint8_t> out(kHdr + payload.size());
    std::span<uint8_t> b(out);
    std::copy(scu::kImageMagic.begin(), scu::kImageMagic.end(), b.begin());
    put<uint16_t>(b, img::kFormat, scu::kImageFormatVersion);
    put<uint16_t>(b, img::kHeaderSize, static_cast<uint16_t>(kHdr));
    put<uint32_t>(b, img::kIface, spec.iface_version ? spec.iface_version : kCardIface);
    put<uint32_t>(b, img::kKind, spec.kind);
    put<uint16_t>(b, img::kKindVersion, spec.kind_version);
    put<uint16_t>(b, img::kFlags, spec.flags);
    put<uint64_t>(b, img::kBuildId, spec.build_id);
    std::copy(spec.name.begin(), spec.name.end(), b.begin() + img::kName);
    put<uint32_t>(b, img::kDataW, spec.data_width ? spec.data_width : scu::kDataWidth);
    put<uint32_t>(b, img::kLuts, spec.resources.luts);
    put<uint32_t>(b, img::kFfs, spec.resources.ffs);
    put<uint32_t>(b, img::kBram36, spec.resources.bram36);
    put<uint32_t>(b, img::kUram, spec.resources.uram);
    put<uint32_t>(b, img::kDsp, spec.resources.dsp);
    put<uint32_t>(b, img::kPayloadOffset, static_cast<uint32_t>(kHdr));
    put<uint64_t>(b, img::kPayloadSize, payload.size());
    std::copy(payload.begin(), payload.end(), b.begin() + kHdr);
    const Sha256Digest h = sha256(payload);
    std::copy(h.begin(), h.end(), b.begin() + img::kSha256);
    put<uint32_t>(b, img::kCrc, scu::image_header_crc(b.first<kHdr>()));
    return out;
}

std::vector<uint8_t> read_file(const std::string& path, uint64_t max_bytes) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        throw ScenicError(errno, "open " + path, "cannot open the file");
    }
    struct stat st {};
    std::vector<uint8_t> data;
    int err = 0;
    std::string why;
    if (::fstat(fd, &st) != 0) {
        err = errno;
        why = "cannot stat the file";
    } else if (!S_ISREG(st.st_mode)) {
        err = EINVAL;
        why = "not a regular file";
    } else if (static_cast<uint64_t>(st.st_size) > max_bytes) {
        err = EFBIG;
        why = std::to_string(st.st_size) + " bytes, the limit is " + std::to_string(max_bytes);
    } else {
        data.resize(static_cast<size_t>(st.st_size));
        size_t got = 0;
        while (got < data.size()) {
            const ssize_t n = ::read(fd, data.data() + got, data.size() - got);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                err = n < 0 ? errno : EIO;
                why = "short read";
                break;
            }
            got += static_cast<size_t>(n);
        }
    }
    ::close(fd);
    if (err != 0) {
        throw ScenicError(err, "read " + path, why);
    }
    return data;
}

void write_file(const std::string& path, std::span<const uint8_t> bytes) {
    const std::string tmp = path + ".tmp";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        throw ScenicError(errno, "write " + path, "cannot create " + tmp);
    }
    size_t done = 0;
    int err = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            err = n < 0 ? errno : EIO;
            break;
        }
        done += static_cast<size_t>(n);
    }
    if (::close(fd) != 0 && err == 0) {
        err = errno;
    }
    if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) {
        err = errno;
    }
    if (err != 0) {
        ::unlink(tmp.c_str());
        throw ScenicError(err, "write " + path, "cannot write the file");
    }
}

std::string_view kind_name(uint32_t kind) {
    switch (kind) {
        case 1:
            return "passthrough";
        case 2:
            return "aes128-ctr";
        case 3:
            return "hash-partition";
        case 4:
            return "flow-monitor";
        case 0x100:
            return "xor-test";  // the model's test kind (docs/scu.md 8 "Test kinds")
        default:
            return {};
    }
}

std::string to_hex(std::span<const uint8_t> bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string s;
    s.reserve(bytes.size() * 2);
    for (const uint8_t x : bytes) {
        s += kDigits[x >> 4];
        s += kDigits[x & 15];
    }
    return s;
}

}  // namespace scenic
