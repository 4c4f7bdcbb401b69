// SPDX-License-Identifier: MIT
// Fake host for the model's unit tests: sparse host memory with faulting ranges, recorded
// interrupts, a fake wire and a manual clock.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "scenic/device.hpp"
#include "scenic/host.hpp"
#include "scenic/regs.hpp"

namespace scenic::test {

class FakeHost final : public Host {
  public:
    // Host memory: one flat buffer at `base`; accesses outside it, or touching `fault_`, fail.
    static constexpr uint64_t kBase = 0x1'0000'0000;
    static constexpr size_t kSize = 256 * 1024;

    FakeHost() : mem(kSize) {}

    bool dma_read(uint64_t addr, std::span<uint8_t> dst) override {
        ++dma_reads;
        max_dma_len = std::max(max_dma_len, dst.size());
        if (!ok(addr, dst.size())) {
            return false;
        }
        std::copy_n(mem.begin() + static_cast<ptrdiff_t>(addr - kBase), dst.size(), dst.begin());
        return true;
    }
    bool dma_write(uint64_t addr, std::span<const uint8_t> src) override {
        ++dma_writes;
        max_dma_len = std::max(max_dma_len, src.size());
        if (!ok(addr, src.size()) || fail_writes) {
            return false;
        }
        std::copy(src.begin(), src.end(), mem.begin() + static_cast<ptrdiff_t>(addr - kBase));
        return true;
    }
    void msix_notify(unsigned vector) override { irqs.push_back(vector); }
    void eth_send(std::span<const uint8_t> frame) override {
        wire.emplace_back(frame.begin(), frame.end());
    }
    uint64_t now_ns() override { return now; }
    void timer_schedule(uint64_t deadline_ns) override { timer = deadline_ns; }
    void timer_cancel() override { timer.reset(); }

    // Advance the clock by ns, firing the device's timer whenever it is due.
    void run_for(Device& dev, uint64_t ns) {
        const uint64_t end = now + ns;
        while (timer && *timer <= end) {
            now = std::max(now, *timer);
            timer.reset();
            dev.timer_fire();
        }
        now = end;
    }

    std::vector<uint8_t> mem;
    std::optional<std::pair<uint64_t, uint64_t>> fault;  // [first, last] bus addresses that fail
    bool fail_writes = false;
    std::vector<unsigned> irqs;
    std::vector<std::vector<uint8_t>> wire;
    uint64_t now = 1'000'000;
    std::optional<uint64_t> timer;
    unsigned dma_reads = 0;
    unsigned dma_writes = 0;
    size_t max_dma_len = 0;  // longest DMA access the device made

  private:
    bool ok(uint64_t addr, size_t len) const {
        if (len == 0 || addr < kBase || addr - kBase > kSize || len > kSize - (addr - kBase)) {
            return false;
        }
        return !(fault && addr <= fault->second && addr + len - 1 >= fault->first);
    }
};

// 32-bit register access as a driver does it.
inline uint32_t rd(const Device& dev, uint32_t offset) {
    return static_cast<uint32_t>(dev.mmio_read(offset, 4));
}
inline void wr(Device& dev, uint32_t offset, uint32_t value) { dev.mmio_write(offset, value, 4); }

}  // namespace scenic::test
