// SPDX-License-Identifier: MIT
#include "scenic/dp/aes128.hpp"

#include <stdexcept>

namespace scenic::dp {
namespace {

// Multiplication in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (FIPS-197 4.2).
constexpr uint8_t gmul(uint8_t a, uint8_t b) {
    uint8_t p = 0;
    for (int i = 0; i < 8; ++i) {
        if ((b & 1U) != 0) {
            p = static_cast<uint8_t>(p ^ a);
        }
        const bool hi = (a & 0x80U) != 0;
        a = static_cast<uint8_t>(a << 1);
        if (hi) {
            a = static_cast<uint8_t>(a ^ 0x1bU);
        }
        b = static_cast<uint8_t>(b >> 1);
    }
    return p;
}

constexpr uint8_t rotl8(uint8_t v, unsigned n) {
    return static_cast<uint8_t>((v << n) | (v >> (8 - n)));
}

// The S-box from its definition (FIPS-197 5.1.1): the multiplicative inverse (0 for 0) followed
// by the affine map. The inverse comes from powers of the generator 3: x = 3^k has the inverse
// 3^(255-k). Computed here, not copied: the RTL's table is checked against it.
constexpr std::array<uint8_t, 256> make_sbox() {
    std::array<uint8_t, 256> pow{};  // pow[k] = 3^k, k = 0..254
    std::array<uint8_t, 256> log{};  // log[3^k] = k
    uint8_t p = 1;
    for (unsigned k = 0; k < 255; ++k) {
        pow[k] = p;
        log[p] = static_cast<uint8_t>(k);
        p = gmul(p, 3);
    }
    std::array<uint8_t, 256> s{};
    for (unsigned x = 0; x < 256; ++x) {
        const uint8_t inv = x == 0 ? 0 : pow[(255U - log[x]) % 255U];
        s[x] = static_cast<uint8_t>(inv ^ rotl8(inv, 1) ^ rotl8(inv, 2) ^ rotl8(inv, 3) ^
                                    rotl8(inv, 4) ^ 0x63U);
    }
    return s;
}
constexpr std::array<uint8_t, 256> kSbox = make_sbox();
static_assert(kSbox[0x00] == 0x63 && kSbox[0x53] == 0xed, "FIPS-197 5.1.1 examples");

constexpr uint8_t xtime(uint8_t a) { return gmul(a, 2); }

}  // namespace

Aes128::Aes128(const AesBlock& key) {
    rk_[0] = key;
    uint8_t rcon = 1;
    for (unsigned r = 1; r <= 10; ++r) {
        const AesBlock& p = rk_[r - 1];
        AesBlock& n = rk_[r];
        // SubWord(RotWord(w3)) ^ Rcon
        const std::array<uint8_t, 4> t = {static_cast<uint8_t>(kSbox[p[13]] ^ rcon), kSbox[p[14]],
                                          kSbox[p[15]], kSbox[p[12]]};
        for (unsigned i = 0; i < 4; ++i) {
            n[i] = static_cast<uint8_t>(p[i] ^ t[i]);
        }
        for (unsigned i = 4; i < 16; ++i) {
            n[i] = static_cast<uint8_t>(p[i] ^ n[i - 4]);
        }
        rcon = xtime(rcon);
    }
}

AesBlock Aes128::encrypt(const AesBlock& in) const {
    AesBlock s{};
    for (unsigned i = 0; i < 16; ++i) {
        s[i] = static_cast<uint8_t>(in[i] ^ rk_[0][i]);
    }
    for (unsigned r = 1; r <= 10; ++r) {
        AesBlock t{};
        // SubBytes and ShiftRows: byte (row, col) = 4 col + row takes row `row` of col + row.
        for (unsigned c = 0; c < 4; ++c) {
            for (unsigned row = 0; row < 4; ++row) {
                t[4 * c + row] = kSbox[s[4 * ((c + row) % 4) + row]];
            }
        }
        if (r != 10) {  // MixColumns
            for (unsigned c = 0; c < 4; ++c) {
                const uint8_t a0 = t[4 * c];
                const uint8_t a1 = t[4 * c + 1];
                const uint8_t a2 = t[4 * c + 2];
                const uint8_t a3 = t[4 * c + 3];
                t[4 * c] = static_cast<uint8_t>(xtime(a0) ^ xtime(a1) ^ a1 ^ a2 ^ a3);
                t[4 * c + 1] = static_cast<uint8_t>(a0 ^ xtime(a1) ^ xtime(a2) ^ a2 ^ a3);
                t[4 * c + 2] = static_cast<uint8_t>(a0 ^ a1 ^ xtime(a2) ^ xtime(a3) ^ a3);
                t[4 * c + 3] = static_cast<uint8_t>(xtime(a0) ^ a0 ^ a1 ^ a2 ^ xtime(a3));
            }
        }
        for (unsigned i = 0; i < 16; ++i) {
            s[i] = static_cast<uint8_t>(t[i] ^ rk_[r][i]);
        }
    }
    return s;
}

AesBlock block_from_csrs(uint64_t hi, uint64_t lo) {
    AesBlock b{};
    for (unsigned i = 0; i < 8; ++i) {
        b[i] = static_cast<uint8_t>(hi >> (56 - 8 * i));
        b[8 + i] = static_cast<uint8_t>(lo >> (56 - 8 * i));
    }
    return b;
}

AesBlock aes_ctr_counter(const AesBlock& iv, uint32_t qpn_masked, uint32_t offset, uint32_t pos) {
    const uint64_t add = (uint64_t{qpn_masked} << 32) + uint64_t{offset / 16} + uint64_t{pos / 16};
    AesBlock c = iv;
    uint64_t carry = 0;
    for (unsigned i = 0; i < 16; ++i) {  // from the least significant byte, 15
        const unsigned b = 15 - i;
        const uint64_t a = i < 8 ? (add >> (8 * i)) & 0xffU : 0;
        const uint64_t sum = c[b] + a + carry;
        c[b] = static_cast<uint8_t>(sum);
        carry = sum >> 8;
    }
    return c;
}

void aes_ctr_apply(const Aes128& aes, const AesBlock& iv, uint32_t qpn_masked, uint32_t offset,
                   std::span<const uint8_t> in, std::span<uint8_t> out) {
    if (out.size() != in.size()) {
        throw std::invalid_argument("aes_ctr_apply: output size differs from input");
    }
    AesBlock ks{};
    for (size_t i = 0; i < in.size(); ++i) {
        if (i % 16 == 0) {
            ks = aes.encrypt(aes_ctr_counter(iv, qpn_masked, offset, static_cast<uint32_t>(i)));
        }
        out[i] = static_cast<uint8_t>(in[i] ^ ks[i % 16]);
    }
}

}  // namespace scenic::dp
