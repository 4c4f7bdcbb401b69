// SPDX-License-Identifier: MIT
// AES-128 encryption (FIPS-197) and the counter mode of the aes-ctr SCU (docs/scu-aes-ctr.md):
// the C++ twin of hw-rtl/scu/aes_ctr/rtl/, transaction level (one call per packet). Shared by
// the device model's SCU kind (scenic::scu::AesCtr) and the RTL testbench.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace scenic::dp {

using AesBlock = std::array<uint8_t, 16>;  // byte 0 first, as FIPS-197 writes blocks

class Aes128 {
  public:
    explicit Aes128(const AesBlock& key);
    [[nodiscard]] AesBlock encrypt(const AesBlock& in) const;
    [[nodiscard]] const AesBlock& round_key(unsigned r) const { return rk_.at(r); }

  private:
    std::array<AesBlock, 11> rk_{};
};

// A 64-bit CSR pair as 16 bytes: hi's most significant byte is byte 0 (a key written as the hex
// string "000102..0f" reads hi = 0x0001020304050607, lo = 0x08090a0b0c0d0e0f).
AesBlock block_from_csrs(uint64_t hi, uint64_t lo);

// The counter block of the 16 payload bytes that start at packet byte `pos` (a multiple of 16)
// of a packet whose first byte is at message offset `offset`:
//   iv + ((qpn_masked << 32) | (offset / 16 + pos / 16))     (mod 2^128, big endian)
AesBlock aes_ctr_counter(const AesBlock& iv, uint32_t qpn_masked, uint32_t offset, uint32_t pos);

// out[i] = in[i] ^ keystream byte i % 16 of aes(counter(pos = i - i % 16)); out.size() must be
// in.size().
void aes_ctr_apply(const Aes128& aes, const AesBlock& iv, uint32_t qpn_masked, uint32_t offset,
                   std::span<const uint8_t> in, std::span<uint8_t> out);

}  // namespace scenic::dp
