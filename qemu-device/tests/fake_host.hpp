// SPDX-License-Identifier: MIT
// Fake host for the model's unit tests: sparse host memory with faulting ranges, recorded
// interrupts, a fake wire and a manual clock.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
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
        if (route && routed_read(addr, dst)) {
            return true;
        }
        if (!ok(addr, dst.size())) {
            return false;
        }
        std::copy_n(mem.begin() + static_cast<ptrdiff_t>(addr - kBase), dst.size(), dst.begin());
        return true;
    }
    bool dma_write(uint64_t addr, std::span<const uint8_t> src) override {
        ++dma_writes;
        max_dma_len = std::max(max_dma_len, src.size());
        if (on_dma_write) {
            on_dma_write(addr, src);
        }
        if (route && routed_write(addr, src)) {
            return true;
        }
        if (!ok(addr, src.size()) || fail_writes) {
            return false;
        }
        std::copy(src.begin(), src.end(), mem.begin() + static_cast<ptrdiff_t>(addr - kBase));
        return true;
    }
    void msix_notify(unsigned vector) override {
        irqs.push_back(vector);
        if (const auto a = msix_address(vector); a && route) {
            const auto data = static_cast<uint32_t>(vector);
            std::array<uint8_t, 4> raw{};
            std::memcpy(raw.data(), &data, raw.size());
            routed_write(*a, raw);  // the message is a DMA write like any other
        }
    }
    size_t bar_windows(std::span<Window, kMaxWindows> out) override {
        if (!announce_bars) {
            return 0;
        }
        out[0] = {bar0_base, regs::kBar0Size};
        out[1] = {db_base, Device::db_size()};
        out[2] = {scu_base, Device::scu_bar_size()};
        return 3;
    }
    std::optional<uint64_t> msix_address(unsigned vector) override {
        const auto it = msix_addr.find(vector);
        return it == msix_addr.end() ? std::nullopt : std::optional<uint64_t>(it->second);
    }
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

    // Where the guest put the card's BARs. With `route`, DMA (and MSI-X messages, msix_addr)
    // that land there go into that device as MMIO and doorbell writes, split as QEMU's memory
    // core splits them: the card's own DMA re-enters it. announce_bars: bar_windows() tells the
    // model where they are.
    uint64_t bar0_base = 0xfe00'0000;
    uint64_t db_base = 0xf000'0000;
    uint64_t scu_base = 0xfd00'0000;  // BAR3, the SCU CSR windows
    Device* route = nullptr;
    bool announce_bars = true;
    std::map<unsigned, uint64_t> msix_addr;
    std::function<void(uint64_t, std::span<const uint8_t>)> on_dma_write;  // before the write

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
    // QEMU splits an access to an MMIO region into naturally aligned pieces of at most 8 bytes.
    template <typename Piece>
    static void split(uint64_t addr, size_t len, Piece&& piece) {
        size_t done = 0;
        while (done < len) {
            const uint64_t a = addr + done;
            unsigned size = 8;
            while (size > 1 && ((a & (size - 1)) != 0 || size > len - done)) {
                size /= 2;
            }
            piece(a, done, size);
            done += size;
        }
    }
    // Which BAR [addr, addr + len) falls in: 0 (BAR0), 3 (SCU CSRs), 4 (doorbells), or -1.
    int bar_of(uint64_t addr, size_t len) const {
        if (addr >= bar0_base && addr - bar0_base < regs::kBar0Size &&
            len <= regs::kBar0Size - (addr - bar0_base)) {
            return 0;
        }
        if (addr >= db_base && addr - db_base < Device::db_size() &&
            len <= Device::db_size() - (addr - db_base)) {
            return 4;
        }
        if (addr >= scu_base && addr - scu_base < Device::scu_bar_size() &&
            len <= Device::scu_bar_size() - (addr - scu_base)) {
            return 3;
        }
        return -1;
    }
    bool routed_write(uint64_t addr, std::span<const uint8_t> src) {
        const int bar = bar_of(addr, src.size());
        if (bar < 0) {
            return false;
        }
        split(addr, src.size(), [&](uint64_t a, size_t off, unsigned size) {
            uint64_t v = 0;
            std::memcpy(&v, src.data() + off, size);
            if (bar == 0) {
                route->mmio_write(a - bar0_base, v, size);
            } else if (bar == 3) {
                route->scu_write(a - scu_base, v, size);
            } else {
                route->db_write(a - db_base, v, size);
            }
        });
        return true;
    }
    bool routed_read(uint64_t addr, std::span<uint8_t> dst) {
        const int bar = bar_of(addr, dst.size());
        if (bar < 0) {
            return false;
        }
        split(addr, dst.size(), [&](uint64_t a, size_t off, unsigned size) {
            const uint64_t v = bar == 0 ? route->mmio_read(a - bar0_base, size) : 0;
            std::memcpy(dst.data() + off, &v, size);
        });
        return true;
    }

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
