// SPDX-License-Identifier: MIT
// A host for the device model that behaves like QEMU 7.2 (Debian's, with the memory re-entrancy
// guard) does for qemu/scenic.c, so that the fuzzer sees what a guest can make QEMU do:
//  - one bus address space: guest RAM, BAR0 (registers), the doorbell BAR, the MSI-X table BAR
//    and the LAPIC's MSI window; everything else is unassigned (DMA fails);
//  - DMA and MSI-X writes that land on the card's own BARs are dispatched back into the card,
//    split as QEMU's memory core splits them for ops with .impl = {1, 8, unaligned}: pieces of
//    pow2floor(min(remaining, 8)) bytes;
//  - the device's re-entrancy guard: set while a BAR access or a received frame is in the card;
//    an access to the card's BARs while it is set fails (MEMTX_ACCESS_ERROR), a frame is not
//    delivered. Timer callbacks and resets run without it, as in QEMU.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <deque>
#include <optional>
#include <span>
#include <vector>

#include "scenic/model.h"
#include "scenic/regs.hpp"
#include "uapi/scenic_regs.h"

namespace scenic::fuzz {

class FakeQemu {
  public:
    static constexpr uint64_t kRamBase = 0x1'0000'0000;
    static constexpr size_t kRamSize = 256 * 1024;
    static constexpr uint64_t kBar0 = 0xfe00'0000;
    static constexpr uint64_t kDbBar = 0xfc00'0000;
    static constexpr uint64_t kMsixBar = 0xfeb0'0000;
    static constexpr uint64_t kScuBar = 0xfd00'0000;  // BAR3, the SCU CSR windows
    static constexpr uint64_t kScuBarSize = SCENIC_SCU_BAR_SIZE;
    static constexpr uint64_t kMsixBarSize = SCENIC_MSIX_VECTORS * 16;
    static constexpr uint64_t kLapic = 0xfee0'0000;
    static constexpr uint64_t kLapicSize = 0x10'0000;
    static constexpr size_t kMaxWire = 64;  // frames kept for the peer; older ones are dropped

    // Guest RAM is one buffer for the whole process, cleared per input: a fresh 256 KiB
    // allocation per input cost more than the card itself (page faults).
    FakeQemu() : ram(ram_buffer()) { std::fill(ram.begin(), ram.end(), uint8_t{0}); }

    // Creates the card; false if the model refused.
    bool create(bool msix) {
        const scenic_host_ops ops = {
            .dma_read =
                [](void* o, uint64_t a, void* b, size_t l) {
                    return static_cast<FakeQemu*>(o)->dma(a, static_cast<uint8_t*>(b), l, false);
                },
            .dma_write =
                [](void* o, uint64_t a, const void* b, size_t l) {
                    return static_cast<FakeQemu*>(o)->dma(
                        a, const_cast<uint8_t*>(static_cast<const uint8_t*>(b)), l, true);
                },
            .msix_notify = [](void* o, unsigned v) { static_cast<FakeQemu*>(o)->msix_notify(v); },
            .eth_send =
                [](void* o, const void* f, size_t l) {
                    static_cast<FakeQemu*>(o)->eth_send(static_cast<const uint8_t*>(f), l);
                },
            .now_ns = [](void* o) { return static_cast<FakeQemu*>(o)->now; },
            .timer_schedule = [](void* o, uint64_t d) { static_cast<FakeQemu*>(o)->timer = d; },
            .timer_cancel = [](void* o) { static_cast<FakeQemu*>(o)->timer.reset(); },
            .opaque = this,
        };
        scenic_model_config cfg{};
        const uint8_t mac[6] = {0x02, 0x5c, 0x00, 0x00, 0x00, 0x01};
        std::memcpy(cfg.mac, mac, sizeof mac);
        cfg.msix_vectors = msix ? SCENIC_MSIX_VECTORS : 0;
        cfg.sr_default = true;  // QPs offer and answer selective repeat: its opcodes are parsed
        msix_ = msix;
        for (unsigned v = 0; v < SCENIC_MSIX_VECTORS; ++v) {
            msix_table[v] = {kLapic + 0x1000 + v * 4, 0x4000 + v};
        }
        model = scenic_model_create(&cfg, &ops);
        db_size = model ? scenic_model_db_size(model) : 0;
        scu_size = model ? scenic_model_scu_size(model) : 0;
        return model != nullptr;
    }
    ~FakeQemu() {
        if (model) {
            scenic_model_destroy(model);
        }
    }
    FakeQemu(const FakeQemu&) = delete;
    FakeQemu& operator=(const FakeQemu&) = delete;

    // ---- what a vCPU does: MMIO through the memory core (guard checked and set)
    uint64_t bar0_read(uint64_t off, unsigned size) {
        uint64_t v = 0;
        (void)access(kBar0 + off, size, v, false);
        return v;
    }
    void bar0_write(uint64_t off, uint64_t v, unsigned size) {
        (void)access(kBar0 + off, size, v, true);
    }
    uint64_t db_read(uint64_t off, unsigned size) {
        uint64_t v = 0;
        (void)access(kDbBar + off, size, v, false);
        return v;
    }
    void db_write(uint64_t off, uint64_t v, unsigned size) {
        (void)access(kDbBar + off, size, v, true);
    }
    uint64_t scu_read(uint64_t off, unsigned size) {
        uint64_t v = 0;
        (void)access(kScuBar + off, size, v, false);
        return v;
    }
    void scu_write(uint64_t off, uint64_t v, unsigned size) {
        (void)access(kScuBar + off, size, v, true);
    }
    uint32_t rd32(uint32_t off) { return static_cast<uint32_t>(bar0_read(off, 4)); }
    void wr32(uint32_t off, uint32_t v) { bar0_write(off, v, 4); }

    // ---- the NIC's receive path (net/net.c checks the same guard)
    void receive(std::span<const uint8_t> frame) {
        if (guard_) {
            ++blocked;
            return;
        }
        if (!scenic_model_can_receive(model)) {
            ++not_ready;  // QEMU queues it; the harness drops it
            return;
        }
        guard_ = true;
        scenic_model_eth_rx(model, frame.data(), frame.size());
        guard_ = false;
    }

    // ---- QEMU's timer callback and resets: no guard
    bool fire_due() {
        if (!timer || *timer > now) {
            return false;
        }
        timer.reset();
        ++fires;
        scenic_model_timer_fire(model);
        return true;
    }
    void reset() { scenic_model_reset(model); }

    // Bus accesses by the card. Returns 0 or -1 like pci_dma_rw.
    int dma(uint64_t addr, uint8_t* buf, size_t len, bool write) {
        ++dmas;
        bool ok = true;
        while (len != 0) {
            if (addr >= kRamBase && addr - kRamBase < kRamSize) {
                const size_t off = addr - kRamBase;
                const size_t n = std::min(len, kRamSize - off);
                if (fault_len != 0 && off < fault_off + fault_len && off + n > fault_off) {
                    ok = false;  // an IOMMU fault: nothing moves
                } else if (write) {
                    std::memcpy(&ram[off], buf, n);
                } else {
                    std::memcpy(buf, &ram[off], n);
                }
                addr += n, buf += n, len -= n;
                continue;
            }
            // MMIO or unassigned: QEMU's memory_access_size() with impl.max 8, unaligned.
            const unsigned n = static_cast<unsigned>(std::bit_floor(std::min<size_t>(len, 8)));
            uint64_t v = 0;
            if (write) {
                for (unsigned i = 0; i < n; ++i) {
                    v |= uint64_t{buf[i]} << (8 * i);
                }
            }
            if (!access(addr, n, v, write)) {
                ok = false;
            }
            if (!write) {
                for (unsigned i = 0; i < n; ++i) {
                    buf[i] = static_cast<uint8_t>(v >> (8 * i));
                }
            }
            addr += n, buf += n, len -= n;
        }
        return ok ? 0 : -1;
    }

    struct MsixEntry {
        uint64_t addr;
        uint32_t data;
    };

    scenic_model* model = nullptr;
    uint64_t db_size = 0;
    uint64_t scu_size = 0;
    std::span<uint8_t> ram;
    size_t fault_off = 0, fault_len = 0;
    std::array<MsixEntry, SCENIC_MSIX_VECTORS> msix_table{};
    std::deque<std::vector<uint8_t>> wire;  // frames the card sent, oldest first
    uint64_t now = 1'000'000;
    std::optional<uint64_t> timer;
    uint64_t fires = 0, dmas = 0, blocked = 0, not_ready = 0, irqs = 0, sent = 0;
    uint64_t self_hits = 0;  // DMA / MSI pieces that reached the card's own BARs

  private:
    static std::span<uint8_t> ram_buffer() {
        static std::vector<uint8_t> buf(kRamSize);
        return buf;
    }
    // One access of size 1, 2, 4 or 8 in the bus address space; false: MEMTX error.
    bool access(uint64_t addr, unsigned size, uint64_t& v, bool write) {
        const bool bar0 = addr >= kBar0 && addr - kBar0 < SCENIC_BAR0_SIZE;
        const bool db = addr >= kDbBar && addr - kDbBar < db_size;
        const bool scu = addr >= kScuBar && addr - kScuBar < scu_size;
        if (bar0 || db || scu) {
            if (guard_) {
                ++blocked;  // "Blocked re-entrant IO on MemoryRegion"
                if (!write) {
                    v = 0;
                }
                return false;
            }
            guard_ = true;
            if (scu && write) {
                scenic_model_scu_write(model, addr - kScuBar, v, size);
            } else if (scu) {
                v = scenic_model_scu_read(model, addr - kScuBar, size);
            } else if (bar0 && write) {
                scenic_model_mmio_write(model, addr - kBar0, v, size);
            } else if (bar0) {
                v = scenic_model_mmio_read(model, addr - kBar0, size);
            } else if (write) {
                scenic_model_db_write(model, addr - kDbBar, v, size);
            } else {
                v = scenic_model_db_read(model, addr - kDbBar, size);
            }
            guard_ = false;
            return true;
        }
        if (addr >= kMsixBar && addr - kMsixBar < kMsixBarSize) {
            // The MSI-X table (QEMU's msix.c, no guard): 16 bytes per vector, byte-wise here.
            auto* t = reinterpret_cast<uint8_t*>(&table_bytes_);
            const uint64_t off = addr - kMsixBar;
            sync_table_bytes();
            for (unsigned i = 0; i < size && off + i < kMsixBarSize; ++i) {
                if (write) {
                    t[off + i] = static_cast<uint8_t>(v >> (8 * i));
                } else {
                    v |= uint64_t{t[off + i]} << (8 * i);
                }
            }
            if (write) {
                load_table_bytes();
            }
            return true;
        }
        if (addr >= kLapic && addr - kLapic < kLapicSize) {
            if (write) {
                ++irqs;  // an interrupt delivered to the guest
            } else {
                v = 0;
            }
            return true;
        }
        if (!write) {
            v = 0;
        }
        return false;  // unassigned
    }

    void msix_notify(unsigned vector) {
        if (!msix_ || vector >= SCENIC_MSIX_VECTORS) {
            return;  // scenic.c forwards only with msix=on and in range
        }
        // msi_send_message(): a 4-byte store of the data to the address, in the bus master AS.
        uint64_t v = msix_table[vector].data;
        const uint64_t a = msix_table[vector].addr;
        if ((a >= kBar0 && a - kBar0 < SCENIC_BAR0_SIZE) || (a >= kDbBar && a - kDbBar < db_size) ||
            (a >= kScuBar && a - kScuBar < scu_size)) {
            ++self_hits;
        }
        (void)access(a, 4, v, true);
    }
    void eth_send(const uint8_t* f, size_t l) {
        ++sent;
        if (wire.size() >= kMaxWire) {
            wire.pop_front();
        }
        wire.emplace_back(f, f + l);
    }
    void sync_table_bytes() {
        for (unsigned v = 0; v < SCENIC_MSIX_VECTORS; ++v) {
            table_bytes_[v][0] = static_cast<uint32_t>(msix_table[v].addr);
            table_bytes_[v][1] = static_cast<uint32_t>(msix_table[v].addr >> 32);
            table_bytes_[v][2] = msix_table[v].data;
        }
    }
    void load_table_bytes() {
        for (unsigned v = 0; v < SCENIC_MSIX_VECTORS; ++v) {
            msix_table[v].addr = uint64_t{table_bytes_[v][1]} << 32 | table_bytes_[v][0];
            msix_table[v].data = table_bytes_[v][2];
        }
    }

    bool guard_ = false;  // DeviceState::mem_reentrancy_guard.engaged_in_io
    bool msix_ = true;
    uint32_t table_bytes_[SCENIC_MSIX_VECTORS][4] = {};
};

}  // namespace scenic::fuzz
