// SPDX-License-Identifier: MIT
// Image tooling: round trip, every refusal with its status, and the card's parser agreeing.
#include "scenic/image.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <random>

#include "scenic/error.hpp"
#include "scenic/scu_image.hpp"
#include "test_util.hpp"

namespace scenic {
namespace {

using test::fix_crc;
using test::image;
using test::put32;

TEST(Image, BuildThenCheckRoundTrips) {
    const auto img = image(1, 1, "passthrough");
    const ImageCheck c = check_image(img);
    ASSERT_TRUE(c.ok()) << c.detail;
    EXPECT_EQ(c.header.kind, 1u);
    EXPECT_EQ(c.header.kind_version, 1u);
    EXPECT_EQ(c.header.name, "passthrough");
    EXPECT_EQ(c.header.build_id, 0x1122334455667788ULL);
    EXPECT_EQ(c.header.iface_version, 0x00010000u);
    EXPECT_EQ(c.header.data_width, 512u);
    EXPECT_EQ(c.header.resources.luts, 100u);
    EXPECT_EQ(c.header.resources.ffs, 200u);
    EXPECT_EQ(c.header.resources.bram36, 3u);
    EXPECT_EQ(c.header.resources.dsp, 1u);
    EXPECT_EQ(c.header.payload_offset, 256u);
    EXPECT_EQ(c.header.payload_size, 1000u);
    EXPECT_EQ(img.size(), 1256u);
    // The card's own parser takes it as well.
    scu::ImageInfo info;
    EXPECT_EQ(scu::parse_image(img, 1u << 20, 0x00010000, info), admin::ScuStatus::kOk);
    EXPECT_EQ(info.kind, 1u);
}

TEST(Image, EmptyPayloadIsValid) {
    ImageSpec s;
    s.kind = 1;
    s.name = "empty";
    const auto img = build_image(s, {});
    EXPECT_TRUE(check_image(img).ok());
}

struct Bad {
    const char* what;
    void (*edit)(std::vector<uint8_t>&);
    LoadStatus want;
};

const Bad kBad[] = {
    {"magic", [](std::vector<uint8_t>& b) { b[0] = 'X'; }, LoadStatus::kBadMagic},
    {"short file", [](std::vector<uint8_t>& b) { b.resize(4); }, LoadStatus::kBadMagic},
    {"truncated header", [](std::vector<uint8_t>& b) { b.resize(100); }, LoadStatus::kBadHeader},
    {"format version",
     [](std::vector<uint8_t>& b) {
         b[scu::image::kFormat] = 2;
         fix_crc(b);
     },
     LoadStatus::kBadFormatVersion},
    {"crc", [](std::vector<uint8_t>& b) { b[scu::image::kName] ^= 1; }, LoadStatus::kBadHeader},
    {"reserved 0x58",
     [](std::vector<uint8_t>& b) {
         b[0x5a] = 1;
         fix_crc(b);
     },
     LoadStatus::kBadHeader},
    {"reserved 0x90",
     [](std::vector<uint8_t>& b) {
         b[0xf0] = 1;
         fix_crc(b);
     },
     LoadStatus::kBadHeader},
    {"header size",
     [](std::vector<uint8_t>& b) {
         b[scu::image::kHeaderSize] = 0x10;
         b[scu::image::kHeaderSize + 1] = 0;
         fix_crc(b);
     },
     LoadStatus::kBadHeader},
    {"payload past the end",
     [](std::vector<uint8_t>& b) {
         put32(b, scu::image::kPayloadSize, 5000);
         fix_crc(b);
     },
     LoadStatus::kBadHeader},
    {"payload offset unaligned",
     [](std::vector<uint8_t>& b) {
         put32(b, scu::image::kPayloadOffset, 260);
         put32(b, scu::image::kPayloadSize, 10);
         fix_crc(b);
     },
     LoadStatus::kBadHeader},
    {"interface major",
     [](std::vector<uint8_t>& b) {
         put32(b, scu::image::kIface, 0x00020000);
         fix_crc(b);
     },
     LoadStatus::kBadIfaceVersion},
    {"interface minor above the card's",
     [](std::vector<uint8_t>& b) {
         put32(b, scu::image::kIface, 0x00010001);
         fix_crc(b);
     },
     LoadStatus::kBadIfaceVersion},
    {"data width",
     [](std::vector<uint8_t>& b) {
         put32(b, scu::image::kDataW, 1024);
         fix_crc(b);
     },
     LoadStatus::kBadDataWidth},
    {"payload byte", [](std::vector<uint8_t>& b) { b[300] ^= 0x80; }, LoadStatus::kHashMismatch},
    {"hash byte",
     [](std::vector<uint8_t>& b) {
         b[scu::image::kSha256] ^= 1;
         fix_crc(b);
     },
     LoadStatus::kHashMismatch},
};

TEST(Image, EveryRefusalHasItsStatusAndField) {
    for (const Bad& bad : kBad) {
        auto img = image();
        bad.edit(img);
        const ImageCheck c = check_image(img);
        EXPECT_EQ(c.status, bad.want)
            << bad.what << ": got " << load_status_name(static_cast<uint32_t>(c.status)) << " ("
            << c.detail << ")";
        EXPECT_FALSE(c.detail.empty()) << bad.what;
    }
}

TEST(Image, TooLarge) {
    const auto img = image();
    ImageCheckOptions o;
    o.max_bytes = img.size() - 1;
    EXPECT_EQ(check_image(img, o).status, LoadStatus::kTooLarge);
}

TEST(Image, CardOptionsAreHonoured) {
    const auto img = image();
    ImageCheckOptions o;
    o.card_iface = 0x00010002;  // a newer card takes a 1.0 image
    EXPECT_TRUE(check_image(img, o).ok());
    o.card_data_width = 1024;  // a 200G card does not take a 512-bit build
    EXPECT_EQ(check_image(img, o).status, LoadStatus::kBadDataWidth);
}

// Seeded random edits: this library refuses exactly what the card's parser refuses.
TEST(Image, AgreesWithTheCardParser) {
    std::mt19937 rng(1234);
    const auto good = image();
    int refused = 0;
    for (int i = 0; i < 3000; ++i) {
        auto img = good;
        const size_t at = rng() % img.size();
        img[at] = static_cast<uint8_t>(rng());
        if (rng() % 2 == 0) {
            fix_crc(img);
        }
        scu::ImageInfo info;
        const bool card_ok =
            scu::parse_image(img, 1u << 26, 0x00010000, info) == admin::ScuStatus::kOk;
        const ImageCheck c = check_image(img);
        ASSERT_EQ(c.ok(), card_ok)
            << "seed 1234 iteration " << i << " byte " << at << ": " << c.detail;
        refused += c.ok() ? 0 : 1;
    }
    EXPECT_GT(refused, 1000);  // the edits did hit checks
}

TEST(Image, NameTooLongIsRefused) {
    ImageSpec s;
    s.kind = 1;
    s.name = std::string(32, 'a');
    EXPECT_THROW(build_image(s, {}), std::invalid_argument);
    s.name = std::string(31, 'a');
    EXPECT_EQ(check_image(build_image(s, {})).header.name, s.name);
}

TEST(Image, StatusNamesAndErrnos) {
    EXPECT_EQ(load_status_name(0), "OK");
    EXPECT_EQ(load_status_name(6), "HASH_MISMATCH");
    EXPECT_EQ(load_status_name(13), "RECONFIG_FAILED");
    EXPECT_EQ(load_status_name(99), "UNKNOWN(99)");
    EXPECT_EQ(load_status_errno(LoadStatus::kHashMismatch), ENOEXEC);
    EXPECT_EQ(load_status_errno(LoadStatus::kNoResources), ENOSPC);
    EXPECT_EQ(load_status_errno(LoadStatus::kDrainTimeout), ETIMEDOUT);
    EXPECT_EQ(load_status_errno(LoadStatus::kFixedSlot), EPERM);
    EXPECT_EQ(load_status_errno(LoadStatus::kTooLarge), EFBIG);
    EXPECT_EQ(load_status_errno(LoadStatus::kReconfigFailed), EIO);
}

TEST(Image, FilesRoundTripAndLimits) {
    test::TempDir dir;
    const auto img = image();
    write_file(dir.file("a.scuimg"), img);
    EXPECT_EQ(read_file(dir.file("a.scuimg"), 1 << 20), img);
    try {
        read_file(dir.file("a.scuimg"), 100);
        FAIL() << "a file above the limit was read";
    } catch (const ScenicError& e) {
        EXPECT_EQ(e.errno_value(), EFBIG);
    }
    try {
        read_file(dir.file("missing"), 100);
        FAIL();
    } catch (const ScenicError& e) {
        EXPECT_EQ(e.errno_value(), ENOENT);
    }
}

}  // namespace
}  // namespace scenic
