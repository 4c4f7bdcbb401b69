// SPDX-License-Identifier: MIT
// The C interface (scenic/model.h) over scenic::Device. No exception leaves this file.
#include <algorithm>
#include <array>
#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <type_traits>

#include "scenic/device.hpp"
#include "scenic/model.h"
#include "scenic/wire_fault_spec.hpp"

namespace {

// Host implemented by the C callbacks of scenic_host_ops. A missing callback behaves like a
// host that has nothing there: DMA fails, interrupts and frames go nowhere, time stands still.
class CHost final : public scenic::Host {
  public:
    explicit CHost(const scenic_host_ops& ops) : ops_(ops) {}

    bool dma_read(uint64_t addr, std::span<uint8_t> dst) override {
        return ops_.dma_read && ops_.dma_read(ops_.opaque, addr, dst.data(), dst.size()) == 0;
    }
    bool dma_write(uint64_t addr, std::span<const uint8_t> src) override {
        return ops_.dma_write && ops_.dma_write(ops_.opaque, addr, src.data(), src.size()) == 0;
    }
    void msix_notify(unsigned vector) override {
        if (ops_.msix_notify) {
            ops_.msix_notify(ops_.opaque, vector);
        }
    }
    void eth_send(std::span<const uint8_t> frame) override {
        if (ops_.eth_send) {
            ops_.eth_send(ops_.opaque, frame.data(), frame.size());
        }
    }
    uint64_t now_ns() override { return ops_.now_ns ? ops_.now_ns(ops_.opaque) : 0; }
    void timer_schedule(uint64_t deadline_ns) override {
        if (ops_.timer_schedule) {
            ops_.timer_schedule(ops_.opaque, deadline_ns);
        }
    }
    void timer_cancel() override {
        if (ops_.timer_cancel) {
            ops_.timer_cancel(ops_.opaque);
        }
    }
    size_t bar_windows(std::span<Window, kMaxWindows> out) override {
        if (!ops_.bar_windows) {
            return 0;
        }
        std::array<uint64_t, kMaxWindows> base{};
        std::array<uint64_t, kMaxWindows> size{};
        const size_t n = std::min(
            ops_.bar_windows(ops_.opaque, base.data(), size.data(), kMaxWindows), kMaxWindows);
        for (size_t i = 0; i < n; ++i) {
            out[i] = {base[i], size[i]};
        }
        return n;
    }
    std::optional<uint64_t> msix_address(unsigned vector) override {
        uint64_t addr = 0;
        if (ops_.msix_address && ops_.msix_address(ops_.opaque, vector, &addr) == 0) {
            return addr;
        }
        return std::nullopt;
    }

  private:
    scenic_host_ops ops_;
};

void report(const char* what, const std::exception* e) {
    std::fprintf(stderr, "scenic model: %s failed: %s\n", what, e ? e->what() : "unknown error");
}

// Runs f, turning any exception into a message and a zero result.
template <typename F>
auto guarded(const char* what, F&& f) noexcept -> std::invoke_result_t<F> {
    using R = std::invoke_result_t<F>;
    try {
        return f();
    } catch (const std::exception& e) {
        report(what, &e);
    } catch (...) {
        report(what, nullptr);
    }
    if constexpr (!std::is_void_v<R>) {
        return R{};
    }
}

// Runs a parser: 0 if it accepts, else -1 with its message in err.
template <typename F>
int checked(F&& parse, const char* fallback, char* err, size_t err_len) noexcept {
    try {
        parse();
        return 0;
    } catch (const std::exception& e) {
        if (err && err_len > 0) {
            std::snprintf(err, err_len, "%s", e.what());
        }
    } catch (...) {
        if (err && err_len > 0) {
            std::snprintf(err, err_len, "%s", fallback);
        }
    }
    return -1;
}

}  // namespace

struct scenic_model {
    scenic_model(const scenic::Config& config, const scenic_host_ops& ops)
        : host(ops), device(config, host) {}

    CHost host;
    scenic::Device device;
};

extern "C" {

scenic_model* scenic_model_create(const scenic_model_config* cfg, const scenic_host_ops* ops) {
    if (!cfg || !ops) {
        return nullptr;
    }
    return guarded("create", [&]() -> scenic_model* {
        scenic::Config config;
        std::copy(std::begin(cfg->mac), std::end(cfg->mac), config.mac.begin());
        config.msix_vectors = cfg->msix_vectors;
        config.bad_block_version = cfg->bad_block_version;
        config.wire_drop_ppm = cfg->wire_drop_ppm;
        config.wire_seed = cfg->wire_seed;
        config.wire_faults = cfg->wire_faults ? cfg->wire_faults : "";
        config.wire_fault_log = cfg->wire_fault_log ? cfg->wire_fault_log : "";
        config.fault_inject = cfg->fault_inject;
        config.sr_default = cfg->sr_default;
        if (cfg->scu_reconfig_us != 0) {
            config.scu_reconfig_us = cfg->scu_reconfig_us;
        }
        config.rtl_blocks = scenic::cosim::parse_rtl_blocks(cfg->rtl_blocks ? cfg->rtl_blocks : "");
        if (config.rtl_blocks != 0) {
            std::fprintf(stderr, "scenic model: RTL blocks (Verilated): %s\n",
                         scenic::cosim::rtl_block_names(config.rtl_blocks).c_str());
        }
        return std::make_unique<scenic_model>(config, *ops).release();
    });
}

int scenic_model_rtl_check(const char* rtl_blocks, char* err, size_t err_len) {
    return checked([&] { (void)scenic::cosim::parse_rtl_blocks(rtl_blocks ? rtl_blocks : ""); },
                   "invalid rtl list", err, err_len);
}

int scenic_model_wire_faults_check(const char* wire_faults, char* err, size_t err_len) {
    return checked([&] { (void)scenic::wire::parse_wire_faults(wire_faults ? wire_faults : ""); },
                   "invalid wire-faults spec", err, err_len);
}

void scenic_model_destroy(scenic_model* m) { std::unique_ptr<scenic_model> owned(m); }

uint64_t scenic_model_mmio_read(scenic_model* m, uint64_t offset, unsigned size) {
    if (!m) {
        return 0;
    }
    return guarded("mmio_read", [&] { return m->device.mmio_read(offset, size); });
}

void scenic_model_mmio_write(scenic_model* m, uint64_t offset, uint64_t value, unsigned size) {
    if (m) {
        guarded("mmio_write", [&] { m->device.mmio_write(offset, value, size); });
    }
}

uint64_t scenic_model_db_size(scenic_model* m) { return m ? scenic::Device::db_size() : 0; }

uint64_t scenic_model_db_read(scenic_model* /*m*/, uint64_t /*offset*/, unsigned /*size*/) {
    return 0;  // doorbells are write-only
}

void scenic_model_db_write(scenic_model* m, uint64_t offset, uint64_t value, unsigned size) {
    if (m) {
        guarded("db_write", [&] { m->device.db_write(offset, value, size); });
    }
}

uint64_t scenic_model_scu_size(scenic_model* m) { return m ? scenic::Device::scu_bar_size() : 0; }

uint64_t scenic_model_scu_read(scenic_model* m, uint64_t offset, unsigned size) {
    if (!m) {
        return 0;
    }
    return guarded("scu_read", [&] { return m->device.scu_read(offset, size); });
}

void scenic_model_scu_write(scenic_model* m, uint64_t offset, uint64_t value, unsigned size) {
    if (m) {
        guarded("scu_write", [&] { m->device.scu_write(offset, value, size); });
    }
}

void scenic_model_reset(scenic_model* m) {
    if (m) {
        guarded("reset", [&] { m->device.reset(); });
    }
}

size_t scenic_model_eth_rx(scenic_model* m, const void* frame, size_t len) {
    if (!m || (!frame && len != 0)) {
        return len;
    }
    guarded("eth_rx",
            [&] { m->device.eth_rx(std::span(static_cast<const uint8_t*>(frame), len)); });
    return len;
}

bool scenic_model_can_receive(scenic_model* m) {
    return m && guarded("can_receive", [&] { return m->device.can_receive(); });
}

void scenic_model_set_link(scenic_model* m, bool up) {
    if (m) {
        guarded("set_link", [&] { m->device.set_link(up); });
    }
}

void scenic_model_timer_fire(scenic_model* m) {
    if (m) {
        guarded("timer_fire", [&] { m->device.timer_fire(); });
    }
}

uint64_t scenic_model_reentries(scenic_model* m) { return m ? m->device.reentries() : 0; }

uint64_t scenic_model_self_accesses_refused(scenic_model* m) {
    return m ? m->device.self_accesses_refused() : 0;
}

}  // extern "C"
