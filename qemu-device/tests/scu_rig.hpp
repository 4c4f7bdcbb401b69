// SPDX-License-Identifier: MIT
// A rig for the SCU slot tests: a slot manager on a fake host and a fake MR table, the packets
// that come out of the slots and the SCU events, and SCU images built as docs/scu.md 5 says.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "fake_host.hpp"
#include "scenic/event_queue.hpp"
#include "scenic/scu_image.hpp"
#include "scenic/scu_slots.hpp"
#include "scenic/sha256.hpp"

namespace scenic::test {

inline void fix_scu_image_crc(std::vector<uint8_t>& img) {
    const uint32_t crc =
        scu::image_header_crc(std::span<const uint8_t>(img).first<scu::kImageHeaderBytes>());
    for (size_t i = 0; i < 4; ++i) {
        img[scu::image::kCrc + i] = static_cast<uint8_t>(crc >> (8 * i));
    }
}

// A well-formed image of (kind, version) with `payload`; tests then break it on purpose.
inline std::vector<uint8_t> make_scu_image(uint32_t kind, uint16_t version,
                                           std::span<const uint8_t> payload,
                                           uint64_t build_id = 0x0123456789abcdefULL) {
    std::vector<uint8_t> img(scu::kImageHeaderBytes + payload.size());
    const auto put = [&img](size_t off, uint64_t v, size_t n) {
        for (size_t i = 0; i < n; ++i) {
            img[off + i] = static_cast<uint8_t>(v >> (8 * i));
        }
    };
    std::copy(scu::kImageMagic.begin(), scu::kImageMagic.end(), img.begin());
    put(scu::image::kFormat, scu::kImageFormatVersion, 2);
    put(scu::image::kHeaderSize, scu::kImageHeaderBytes, 2);
    put(scu::image::kIface, 0x00010000, 4);
    put(scu::image::kKind, kind, 4);
    put(scu::image::kKindVersion, version, 2);
    put(scu::image::kBuildId, build_id, 8);
    put(scu::image::kName, 0x73736170, 4);  // "pass"
    put(scu::image::kDataW, scu::kDataWidth, 4);
    put(scu::image::kPayloadOffset, scu::kImageHeaderBytes, 4);
    put(scu::image::kPayloadSize, payload.size(), 8);
    std::copy(payload.begin(), payload.end(), img.begin() + scu::kImageHeaderBytes);
    const Sha256Digest h = sha256(payload);
    std::copy(h.begin(), h.end(), img.begin() + scu::image::kSha256);
    fix_scu_image_crc(img);
    return img;
}

class FakeCardMemory final : public scu::CardMemory {
  public:
    std::map<uint32_t, scu::MrInfo> mrs;
    std::vector<uint8_t> bytes = std::vector<uint8_t>(1 << 16);  // iova 0.. of every MR
    uint64_t reads = 0, writes = 0;

    [[nodiscard]] std::optional<scu::MrInfo> mr(uint32_t key) const override {
        const auto it = mrs.find(key);
        return it == mrs.end() ? std::nullopt : std::optional(it->second);
    }
    scu::MemStatus read(uint32_t, uint32_t, uint64_t iova, std::span<uint8_t> dst) override {
        ++reads;
        std::copy_n(bytes.begin() + static_cast<ptrdiff_t>(iova), dst.size(), dst.begin());
        return scu::MemStatus::kOk;
    }
    scu::MemStatus write(uint32_t, uint32_t, uint64_t iova, std::span<const uint8_t> src) override {
        ++writes;
        std::copy(src.begin(), src.end(), bytes.begin() + static_cast<ptrdiff_t>(iova));
        return scu::MemStatus::kOk;
    }
};

struct ScuOut {
    unsigned slot;
    scu::Dir dir;
    scu::Meta meta;
    std::vector<uint8_t> data;
    bool drop;
};

class ScuRig : public ::testing::Test {
  protected:
    static constexpr uint64_t kReconfigNs = 8'000'000;

    ScuRig()
        : events(host),
          mgr({16, kReconfigNs, 1U << 20, 0x00010000},
              {host,
               events,
               mem,
               [this](unsigned s, scu::Dir d, const scu::Meta& m, std::span<const uint8_t> b,
                      bool drop) {
                   out.push_back({s, d, m, {b.begin(), b.end()}, drop});
               },
               [this](const scu::Event& e) { evs.push_back(e); },
               [this](unsigned s) { irqs.push_back(s); },
               {}}) {}

    // Advance the clock, running what falls due.
    void run_for(uint64_t ns) {
        const uint64_t end = host.now + ns;
        while (host.timer && *host.timer <= end) {
            host.now = std::max(host.now, *host.timer);
            host.timer.reset();
            events.fire();
        }
        host.now = end;
    }

    [[nodiscard]] size_t events_of(admin::ScuEventKind k) const {
        return static_cast<size_t>(std::count_if(evs.begin(), evs.end(),
                                                 [k](const scu::Event& e) { return e.kind == k; }));
    }

    static std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
        std::vector<uint8_t> v(n);
        for (size_t i = 0; i < n; ++i) {
            v[i] = static_cast<uint8_t>(seed + i * 7);
        }
        return v;
    }

    FakeHost host;
    EventQueue events;
    FakeCardMemory mem;
    std::vector<ScuOut> out;
    std::vector<scu::Event> evs;
    std::vector<unsigned> irqs;  // the slots whose vector fired, in order
    scu::SlotManager mgr;
};

}  // namespace scenic::test
