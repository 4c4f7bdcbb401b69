// SPDX-License-Identifier: MIT
#include "scenic/sha256.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>

namespace scenic {

namespace {

constexpr std::array<uint32_t, 64> kK{
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

void block(std::array<uint32_t, 8>& h, std::span<const uint8_t, 64> b) {
    std::array<uint32_t, 64> w{};
    for (size_t i = 0; i < 16; ++i) {
        w[i] = (uint32_t{b[4 * i]} << 24) | (uint32_t{b[4 * i + 1]} << 16) |
               (uint32_t{b[4 * i + 2]} << 8) | uint32_t{b[4 * i + 3]};
    }
    for (size_t i = 16; i < 64; ++i) {
        const uint32_t s0 = std::rotr(w[i - 15], 7) ^ std::rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        const uint32_t s1 = std::rotr(w[i - 2], 17) ^ std::rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::array<uint32_t, 8> v = h;
    for (size_t i = 0; i < 64; ++i) {
        const uint32_t e = v[4];
        const uint32_t a = v[0];
        const uint32_t t1 = v[7] + (std::rotr(e, 6) ^ std::rotr(e, 11) ^ std::rotr(e, 25)) +
                            ((e & v[5]) ^ (~e & v[6])) + kK[i] + w[i];
        const uint32_t t2 = (std::rotr(a, 2) ^ std::rotr(a, 13) ^ std::rotr(a, 22)) +
                            ((a & v[1]) ^ (a & v[2]) ^ (v[1] & v[2]));
        v = {t1 + t2, a, v[1], v[2], v[3] + t1, e, v[5], v[6]};
    }
    for (size_t i = 0; i < 8; ++i) {
        h[i] += v[i];
    }
}

}  // namespace

Sha256Digest sha256(std::span<const uint8_t> data) {
    std::array<uint32_t, 8> h{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                              0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    size_t off = 0;
    for (; data.size() - off >= 64; off += 64) {
        block(h, data.subspan(off).first<64>());
    }
    // The tail, 0x80, zeros, and the length in bits (big endian): one or two blocks.
    std::array<uint8_t, 128> tail{};
    const size_t rest = data.size() - off;
    std::copy(data.begin() + static_cast<std::ptrdiff_t>(off), data.end(), tail.begin());
    tail[rest] = 0x80;
    const size_t n = rest < 56 ? 64 : 128;
    const uint64_t bits = uint64_t{data.size()} * 8;
    for (size_t i = 0; i < 8; ++i) {
        tail[n - 1 - i] = static_cast<uint8_t>(bits >> (8 * i));
    }
    for (size_t i = 0; i < n; i += 64) {
        block(h, std::span<const uint8_t, 128>(tail).subspan(i).first<64>());
    }
    Sha256Digest d{};
    for (size_t i = 0; i < 8; ++i) {
        for (size_t j = 0; j < 4; ++j) {
            d[4 * i + j] = static_cast<uint8_t>(h[i] >> (24 - 8 * j));
        }
    }
    return d;
}

}  // namespace scenic
