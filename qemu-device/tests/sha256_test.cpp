// SPDX-License-Identifier: MIT
// The model's SHA-256 (SCU image payloads) against the FIPS 180-4 example vectors, including
// the lengths where the padding takes a second block.
#include "scenic/sha256.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace scenic::test {
namespace {

std::string hex(std::string_view msg) {
    const Sha256Digest d = sha256({reinterpret_cast<const uint8_t*>(msg.data()), msg.size()});
    std::string s;
    for (const uint8_t b : d) {
        std::array<char, 3> x{};
        std::snprintf(x.data(), x.size(), "%02x", b);
        s += x.data();
    }
    return s;
}

TEST(Sha256, Fips180Vectors) {
    EXPECT_EQ(hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    // 56 bytes: the length no longer fits the first padding block.
    EXPECT_EQ(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(hex(std::string(1000000, 'a')),
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

}  // namespace
}  // namespace scenic::test
