// SPDX-License-Identifier: MIT
// Helpers shared by the runtime's tests: images, header edits, a temporary directory.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "scenic/image.hpp"
#include "scenic/scu_image.hpp"

namespace scenic::test {

inline std::vector<uint8_t> payload(size_t n = 1000, uint8_t seed = 7) {
    std::vector<uint8_t> p(n);
    for (size_t i = 0; i < n; ++i) {
        p[i] = static_cast<uint8_t>(seed + i * 31);
    }
    return p;
}

inline std::vector<uint8_t> image(uint32_t kind = 1, uint16_t version = 1,
                                  const std::string& name = "passthrough") {
    ImageSpec s;
    s.kind = kind;
    s.kind_version = version;
    s.name = name;
    s.build_id = 0x1122334455667788ULL;
    s.resources = {100, 200, 3, 0, 1};
    return build_image(s, payload());
}

inline void put32(std::vector<uint8_t>& b, size_t off, uint32_t v) {
    for (size_t i = 0; i < 4; ++i) {
        b[off + i] = static_cast<uint8_t>(v >> (8 * i));
    }
}

// Recomputes the header CRC after an edit, so the edit itself is what a check sees.
inline void fix_crc(std::vector<uint8_t>& b) {
    put32(b, scu::image::kCrc,
          scu::image_header_crc(
              std::span<const uint8_t, scu::kImageHeaderBytes>(b.data(), scu::kImageHeaderBytes)));
}

class TempDir {
  public:
    TempDir() {
        std::string t = (std::filesystem::temp_directory_path() / "scenic-rt-XXXXXX").string();
        if (mkdtemp(t.data()) == nullptr) {
            std::abort();
        }
        path_ = t;
    }
    ~TempDir() { std::filesystem::remove_all(path_); }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    [[nodiscard]] std::string file(const std::string& name) const { return path_ / name; }

  private:
    std::filesystem::path path_;
};

}  // namespace scenic::test
