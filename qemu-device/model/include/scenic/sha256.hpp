// SPDX-License-Identifier: MIT
// SHA-256 (FIPS 180-4), for the payload hash of SCU images: the model links into QEMU alone, so
// it carries its own rather than a crypto library.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace scenic {

using Sha256Digest = std::array<uint8_t, 32>;

Sha256Digest sha256(std::span<const uint8_t> data);

}  // namespace scenic
