// SPDX-License-Identifier: MIT
// The host side of the card, as the device model sees it: what the card is plugged into.
// Sized like the SimBricks device interface. The QEMU glue implements it with pci_dma_*,
// msix_notify, qemu_send_packet and a QEMU_CLOCK_VIRTUAL timer; the unit tests with a fake
// host memory and a fake wire.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace scenic {

// Time in nanoseconds, and one timer: after timer_schedule(t) the owner calls
// EventQueue::fire() once at (or after) t. A new request replaces the previous one. The card's
// host is one (Device::timer_fire); scenic-switch's core has its own, driven by now_ns.
class TimerHost {
  public:
    virtual ~TimerHost() = default;
    virtual uint64_t now_ns() = 0;
    virtual void timer_schedule(uint64_t deadline_ns) = 0;
    virtual void timer_cancel() = 0;
};

class Host : public TimerHost {
  public:
    // Bus-master DMA. Return false if the access failed (unmapped address, IOMMU fault, bus
    // master disabled): the model then reports an error, it never relies on the data.
    virtual bool dma_read(uint64_t addr, std::span<uint8_t> dst) = 0;
    virtual bool dma_write(uint64_t addr, std::span<const uint8_t> src) = 0;

    // Raise an MSI-X vector. The model only calls it with vector < Config::msix_vectors.
    virtual void msix_notify(unsigned vector) = 0;

    // Put one Ethernet frame (without FCS) on the wire.
    virtual void eth_send(std::span<const uint8_t> frame) = 0;

    // Time and the timer (TimerHost): the host calls Device::timer_fire() at the deadline.

    // The card's own BARs where the bus maps them now. A DMA or an MSI-X message there would
    // reach the card itself (QEMU routes it into the MMIO handlers while the model runs), so the
    // model refuses it (BarGuardHost). Fills out, returns how many; 0: none known.
    struct Window {
        uint64_t base = 0;
        uint64_t size = 0;
    };
    static constexpr size_t kMaxWindows = 4;
    virtual size_t bar_windows(std::span<Window, kMaxWindows> /*out*/) { return 0; }
    // The bus address MSI-X vector `vector` writes its message to; nullopt: unknown.
    virtual std::optional<uint64_t> msix_address(unsigned /*vector*/) { return std::nullopt; }
};

// Whether [addr, addr + len) overlaps one of the card's BARs (host.bar_windows()); a wrapping
// range overlaps whatever either part does. Commands use it to refuse ring addresses up front.
inline bool overlaps_card_bars(Host& host, uint64_t addr, uint64_t len) {
    std::array<Host::Window, Host::kMaxWindows> w{};
    const size_t n = std::min(host.bar_windows(w), Host::kMaxWindows);
    const uint64_t last = len == 0 ? addr : addr + (len - 1);
    const bool wraps = last < addr;
    for (size_t i = 0; i < n; ++i) {
        if (w[i].size == 0) {
            continue;
        }
        const uint64_t wlast = w[i].base + (w[i].size - 1);
        if ((addr <= wlast && last >= w[i].base) ||
            (wraps && (addr <= wlast || last >= w[i].base))) {
            return true;
        }
    }
    return false;
}

// The host as the card's blocks see it: DMA and MSI-X messages that land on the card's own BARs
// fail like a DMA error (and are counted) instead of re-entering the card.
class BarGuardHost final : public Host {
  public:
    explicit BarGuardHost(Host& inner) : inner_(inner) {}

    bool dma_read(uint64_t addr, std::span<uint8_t> dst) override {
        return !off_bus_ && !refuse(addr, dst.size()) && inner_.dma_read(addr, dst);
    }
    bool dma_write(uint64_t addr, std::span<const uint8_t> src) override {
        return !off_bus_ && !refuse(addr, src.size()) && inner_.dma_write(addr, src);
    }
    void msix_notify(unsigned vector) override {
        if (off_bus_) {
            return;
        }
        if (const auto a = inner_.msix_address(vector); a && refuse(*a, 4)) {
            return;
        }
        inner_.msix_notify(vector);
    }
    void eth_send(std::span<const uint8_t> frame) override { inner_.eth_send(frame); }
    uint64_t now_ns() override { return inner_.now_ns(); }
    void timer_schedule(uint64_t deadline_ns) override { inner_.timer_schedule(deadline_ns); }
    void timer_cancel() override { inner_.timer_cancel(); }
    size_t bar_windows(std::span<Window, kMaxWindows> out) override {
        return inner_.bar_windows(out);
    }
    std::optional<uint64_t> msix_address(unsigned vector) override {
        return inner_.msix_address(vector);
    }

    // Accesses refused because they overlapped one of the card's BARs.
    [[nodiscard]] uint64_t refused() const { return refused_; }
    // The card left the bus (FAULT_INJECT.link_down): every DMA fails, no MSI-X is sent.
    void set_off_bus(bool off) { off_bus_ = off; }

  private:
    bool refuse(uint64_t addr, size_t len) {
        if (overlaps_card_bars(inner_, addr, len)) {
            ++refused_;
            return true;
        }
        return false;
    }

    Host& inner_;
    uint64_t refused_ = 0;
    bool off_bus_ = false;
};

}  // namespace scenic
