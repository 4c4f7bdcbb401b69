// SPDX-License-Identifier: MIT
// libscenic-runtime: the paper's SCU runtime (§7.3, docs/scu.md 7) over the slot char devices
// of uapi/scenic_scu.h. One owner fd per slot per process: ScenicReconfig borrows a
// ScenicThread's fd when the process already owns the slot.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scenic/error.hpp"
#include "scenic/image.hpp"
#include "scenic/sys.hpp"

struct ibv_context;
struct ibv_pd;
struct ibv_mr;
struct ibv_cq;
struct ibv_qp;

namespace scenic {

struct ReconfigOptions {
    bool dry_run = false;  // check the image in the kernel and the card, change nothing
    bool force = false;    // swap at the drain timeout instead of keeping the old SCU
    std::chrono::milliseconds drain_timeout{0};  // 0: the kernel's default (100 ms)
};

struct ReconfigResult {
    std::chrono::nanoseconds pause{0};  // the slot's flows held (card clock)
    std::chrono::nanoseconds total{0};  // the ioctl, end to end (kernel clock)
    std::chrono::nanoseconds wall{0};   // measured here around the call
};

// "RUNNING", "DRAINING", "LOADING", "FAILED" (uapi enum scenic_scu_state).
std::string state_name(uint32_t state);
// "same-uid", "bound-pd", "any" (uapi enum scenic_scu_qp_policy) and back (-1: unknown name).
std::string qp_policy_name(uint32_t policy);
int qp_policy_from_name(std::string_view name);

struct SlotInfo {
    unsigned card = 0, slot = 0, num_slots = 0, irq_lines = 0;
    uint32_t state = 0;
    bool owned = false, fixed = false, pd_bound = false, owner_is_me = false;
    uint32_t iface_version = 0, data_width = 0, kind = 0;
    uint16_t kind_version = 0;
    uint64_t build_id = 0;
    std::string name;
    std::array<uint8_t, 32> image_sha256{};
    uint32_t csr_size = 0, steer_rules_used = 0, steer_rules_max = 0;
    uint64_t csr_mmap_offset = 0, status_mmap_offset = 0;
    uint32_t status_size = 0, reconfig_delay_us = 0;
    uint64_t loads = 0, last_pause_ns = 0;
    uint32_t qp_policy = 0;
    uint32_t lut_budget = 0, ff_budget = 0, bram_budget = 0, dsp_budget = 0;
};

// The slot's counters (docs/scu.md 2.4 and 4.4), in the status page's order.
struct Counters {
    std::vector<std::pair<std::string_view, uint64_t>> values;
    // ScenicError EINVAL for a name that is not a counter.
    [[nodiscard]] uint64_t at(std::string_view name) const;
};
// The seven completion counter names ("remote_write", ...), status page order.
const std::vector<std::string_view>& completion_names();

// A steering rule (docs/scu.md 3, 4.2): fallback frames that match go to the slot. Unset fields
// are wildcards; addresses are "a.b.c.d[/len]" or IPv6 "x::y[/len]" (all of one family).
struct SteerRule {
    bool rx = true, tx = false;
    uint16_t priority = 0;              // lowest wins, then the lowest rule id
    std::optional<uint16_t> ethertype;  // set from the addresses' family when unset
    std::optional<uint8_t> ip_proto;
    std::string src_ip, dst_ip;
    std::optional<uint16_t> src_port, dst_port;
};

class ScenicReconfig {
  public:
    explicit ScenicReconfig(unsigned card = 0, std::shared_ptr<sys::System> sys = nullptr);

    // Loads the image at path into slot (owner for the call, or through this process's
    // ScenicThread of the slot). Throws ScenicError with the load status on a refusal; the old
    // SCU keeps running then.
    ReconfigResult reconfigure_app(unsigned slot, const std::string& path,
                                   const ReconfigOptions& opt = {});
    ReconfigResult reconfigure_image(unsigned slot, std::span<const uint8_t> image,
                                     const ReconfigOptions& opt = {});
    // Back to the built-in passthrough.
    ReconfigResult unload(unsigned slot, const ReconfigOptions& opt = {});
    [[nodiscard]] SlotInfo info(unsigned slot) const;
    [[nodiscard]] std::vector<SlotInfo> slots() const;
    [[nodiscard]] Counters counters(unsigned slot) const;
    // QP admission policy (owner): SET_POLICY.
    void set_policy(unsigned slot, uint32_t qp_policy);
    // One register through the CSR ioctl (owner for the call), for tools; programs map the
    // window through a ScenicThread.
    uint64_t read_csr(unsigned slot, uint32_t index);
    // Steering (owner with CAP_NET_ADMIN): the new rule's id; rules persist after the close.
    uint32_t steer_add(unsigned slot, const SteerRule& rule);
    void steer_del(unsigned slot, uint32_t rule_id);
    void write_csr(unsigned slot, uint32_t index, uint64_t value);
    [[nodiscard]] unsigned card() const { return card_; }

  private:
    unsigned card_;
    std::shared_ptr<sys::System> sys_;
};

class SlotHandle;  // an open slot; one owner handle per slot per process (src/slot_handle.hpp)
class Verbs;       // the verbs context and PD (src/verbs.hpp)

// Memory registered in a ScenicThread's PD; deregistered when destroyed.
class MemoryRegion {
  public:
    MemoryRegion() = default;
    MemoryRegion(std::shared_ptr<Verbs> v, ibv_mr* mr);
    ~MemoryRegion();
    MemoryRegion(MemoryRegion&& o) noexcept;
    MemoryRegion& operator=(MemoryRegion&& o) noexcept;
    MemoryRegion(const MemoryRegion&) = delete;
    MemoryRegion& operator=(const MemoryRegion&) = delete;
    [[nodiscard]] ibv_mr* mr() const { return mr_; }
    [[nodiscard]] uint32_t lkey() const;
    [[nodiscard]] uint32_t rkey() const;
    [[nodiscard]] void* addr() const;
    [[nodiscard]] size_t length() const;

  private:
    void reset();
    std::shared_ptr<Verbs> verbs_;
    ibv_mr* mr_ = nullptr;
};

// Page-aligned memory of the runtime, registered for local and remote read/write.
class Buffer {
  public:
    Buffer(size_t bytes, std::shared_ptr<Verbs> v, int access);
    [[nodiscard]] uint8_t* data() const { return mem_.get(); }
    [[nodiscard]] size_t size() const { return size_; }
    [[nodiscard]] const MemoryRegion& mr() const { return mr_; }

  private:
    struct Free {
        void operator()(uint8_t* p) const;
    };
    std::unique_ptr<uint8_t, Free> mem_;
    size_t size_;
    MemoryRegion mr_;
};

struct QpAttr {
    uint32_t max_send_wr = 64, max_recv_wr = 64, max_send_sge = 1, max_recv_sge = 1;
    uint32_t max_inline_data = 0;
    int cq_entries = 128;  // one CQ for both directions, created with the QP
};

// An RC QP on the thread's slot, with its CQ; destroyed with it.
class Qp {
  public:
    Qp(std::shared_ptr<Verbs> v, ibv_cq* cq, ibv_qp* qp);
    ~Qp();
    Qp(Qp&& o) noexcept;
    Qp& operator=(Qp&& o) noexcept = delete;
    Qp(const Qp&) = delete;
    Qp& operator=(const Qp&) = delete;
    [[nodiscard]] ibv_qp* qp() const { return qp_; }
    [[nodiscard]] ibv_cq* cq() const { return cq_; }
    [[nodiscard]] uint32_t qp_num() const;

  private:
    std::shared_ptr<Verbs> verbs_;
    ibv_cq* cq_;
    ibv_qp* qp_;
};

class ScenicThread {
  public:
    // Opens the slot as its owner (EBUSY if another process owns it, EPERM for slot 0) and maps
    // its CSR window and status page.
    explicit ScenicThread(unsigned slot, unsigned card = 0,
                          std::shared_ptr<sys::System> sys = nullptr);
    ~ScenicThread();
    ScenicThread(const ScenicThread&) = delete;
    ScenicThread& operator=(const ScenicThread&) = delete;
    ScenicThread(ScenicThread&&) noexcept;
    ScenicThread& operator=(ScenicThread&&) noexcept;

    // offset is the register index (byte address 8 * offset), as in the paper's Code 1.
    void set_csr(uint64_t value, uint32_t offset);
    uint64_t get_csr(uint32_t offset);
    // A completion counter of the slot's QPs by its name ("remote_write", ...).
    [[nodiscard]] uint64_t get_completed(std::string_view op) const;
    // The pending lines (bit per line), 0 on timeout.
    unsigned wait_irq(std::chrono::milliseconds timeout);
    // An eventfd signalled by the line, owned by this object (closed with it).
    int irq_fd(unsigned line);
    // The slot's fd: poll() it for POLLIN, then wait_irq(0ms) to read the lines.
    [[nodiscard]] int fd() const;

    Buffer alloc(size_t bytes);
    MemoryRegion reg(void* addr, size_t bytes, int access);
    Qp create_qp(const QpAttr& attr = {});
    // Binds the slot's memory port to pd() (docs/scu.md 4.5): the SCU then reads and writes
    // the MRs registered here (alloc, reg), nothing else. Undone when the thread closes.
    void bind_pd();
    [[nodiscard]] Counters counters() const;
    [[nodiscard]] SlotInfo info() const;
    [[nodiscard]] ibv_context* context() const;
    [[nodiscard]] ibv_pd* pd() const;
    [[nodiscard]] unsigned slot() const { return slot_; }
    [[nodiscard]] unsigned card() const { return card_; }
    // CSR accesses go through the mapping (true) or, if the driver refused it, the CSR ioctl.
    [[nodiscard]] bool csr_mapped() const;

  private:
    void release() noexcept;
    void check_index(uint32_t offset) const;
    std::shared_ptr<Verbs> verbs() const;
    unsigned slot_, card_;
    std::shared_ptr<SlotHandle> owner_;
    mutable std::shared_ptr<Verbs> verbs_;
    std::vector<std::pair<unsigned, int>> eventfds_;  // (line, fd)
};

}  // namespace scenic
