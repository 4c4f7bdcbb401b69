// SPDX-License-Identifier: MIT
#include "slot_handle.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

namespace scenic {

namespace {

// The process's owner handles, by (system, card, slot); weak, so the last user closes the fd.
std::mutex g_owners_mu;
std::map<std::tuple<const sys::System*, unsigned, unsigned>, std::weak_ptr<SlotHandle>> g_owners;

std::string open_reason(int err, bool owner) {
    switch (err) {
        case EBUSY:
            return "another process owns the slot";
        case EPERM:
            return owner ? "slot 0 is the fixed passthrough and has no owner, or no permission"
                         : "no permission";
        case EACCES:
            return "no permission (the device's file mode)";
        case ENOENT:
        case ENODEV:
        case ENXIO:
            return "no such slot (is scenic_scu.ko loaded?)";
        default:
            return "cannot open the slot";
    }
}

template <typename T>
T sized() {
    T v{};
    v.size = sizeof(T);
    return v;
}

}  // namespace

SlotHandle::SlotHandle(std::shared_ptr<sys::System> sys, unsigned card, unsigned slot, bool owner)
    : sys_(std::move(sys)), card_(card), slot_(slot) {
    int err = 0;
    file_ = sys_->open_slot(card, slot, owner, &err);
    if (!file_) {
        throw ScenicError(err, what(owner ? "open as owner" : "open"), open_reason(err, owner));
    }
}

SlotHandle::~SlotHandle() {
    if (csr_ != nullptr) {
        file_->munmap(const_cast<uint64_t*>(csr_), csr_len_);
    }
    if (status_ != nullptr) {
        file_->munmap(const_cast<uint64_t*>(status_), status_len_);
    }
}

std::string SlotHandle::what(const std::string& op) const {
    return "card " + std::to_string(card_) + " slot " + std::to_string(slot_) + ": " + op;
}

std::shared_ptr<SlotHandle> SlotHandle::find_owner(const std::shared_ptr<sys::System>& sys,
                                                   unsigned card, unsigned slot) {
    const std::lock_guard lock(g_owners_mu);
    const auto it = g_owners.find({sys.get(), card, slot});
    return it == g_owners.end() ? nullptr : it->second.lock();
}

std::shared_ptr<SlotHandle> SlotHandle::owner(const std::shared_ptr<sys::System>& sys,
                                              unsigned card, unsigned slot) {
    const std::lock_guard lock(g_owners_mu);
    auto& w = g_owners[{sys.get(), card, slot}];
    if (auto h = w.lock()) {
        return h;
    }
    auto h = std::make_shared<SlotHandle>(sys, card, slot, true);
    w = h;
    return h;
}

scenic_scu_info SlotHandle::raw_info() const {
    auto i = sized<scenic_scu_info>();
    if (const int r = file_->ioctl(SCENIC_SCU_IOC_INFO, &i); r < 0) {
        throw ScenicError(-r, what("INFO"), "the driver refused the query");
    }
    return i;
}

SlotInfo SlotHandle::info() const {
    const scenic_scu_info r = raw_info();
    SlotInfo s;
    s.card = r.card;
    s.slot = r.slot;
    s.num_slots = r.num_slots;
    s.irq_lines = r.irq_lines;
    s.state = r.state;
    s.owned = (r.flags & SCENIC_SCU_INFO_OWNED) != 0;
    s.fixed = (r.flags & SCENIC_SCU_INFO_FIXED) != 0;
    s.pd_bound = (r.flags & SCENIC_SCU_INFO_PD_BOUND) != 0;
    s.owner_is_me = (r.flags & SCENIC_SCU_INFO_OWNER_IS_ME) != 0;
    s.iface_version = r.iface_version;
    s.data_width = r.data_width;
    s.kind = r.kind;
    s.kind_version = r.kind_version;
    s.build_id = r.build_id;
    s.name.assign(r.name, strnlen(r.name, sizeof(r.name)));
    std::copy(std::begin(r.image_sha256), std::end(r.image_sha256), s.image_sha256.begin());
    s.csr_size = r.csr_size;
    s.steer_rules_used = r.steer_rules_used;
    s.steer_rules_max = r.steer_rules_max;
    s.csr_mmap_offset = r.csr_mmap_offset;
    s.status_mmap_offset = r.status_mmap_offset;
    s.status_size = r.status_size;
    s.reconfig_delay_us = r.reconfig_delay_us;
    s.loads = r.loads;
    s.last_pause_ns = r.last_pause_ns;
    s.qp_policy = r.qp_policy;
    s.lut_budget = r.lut_budget;
    s.ff_budget = r.ff_budget;
    s.bram_budget = r.bram_budget;
    s.dsp_budget = r.dsp_budget;
    return s;
}

ReconfigResult SlotHandle::load(std::span<const uint8_t> image, const ReconfigOptions& opt,
                                bool unload) {
    auto l = sized<scenic_scu_load>();
    if (!unload) {
        l.image_ptr = reinterpret_cast<uintptr_t>(image.data());
        l.image_len = image.size();
    }
    l.flags = (opt.dry_run ? uint32_t{SCENIC_SCU_LOAD_DRY_RUN} : 0U) |
              (opt.force ? uint32_t{SCENIC_SCU_LOAD_FORCE} : 0U);
    const auto ms = opt.drain_timeout.count();
    if (ms < 0 || ms > UINT32_MAX) {
        throw ScenicError(EINVAL, what("LOAD"), "drain timeout out of range");
    }
    l.drain_timeout_ms = static_cast<uint32_t>(ms);
    const auto t0 = std::chrono::steady_clock::now();
    const int r = file_->ioctl(unload ? SCENIC_SCU_IOC_UNLOAD : SCENIC_SCU_IOC_LOAD, &l);
    ReconfigResult out;
    out.wall = std::chrono::steady_clock::now() - t0;
    out.pause = std::chrono::nanoseconds(l.pause_ns);
    out.total = std::chrono::nanoseconds(l.total_ns);
    if (r < 0) {
        const auto st = static_cast<LoadStatus>(l.status);
        std::string why = l.status != 0 ? "refused with " + load_status_name(l.status)
                                        : std::string("the driver refused the call");
        // Name the field for the image errors (the kernel logs it with dev_dbg only).
        if (!unload && load_status_errno(st) == ENOEXEC) {
            const ImageCheck c = check_image(image);
            if (!c.ok()) {
                why += " (" + c.detail + ")";
            }
        }
        if (-r == EBADF || -r == EACCES) {
            why += ": only the slot's owner loads";
        }
        throw ScenicError(-r, what(unload ? "UNLOAD" : "LOAD"), why, st);
    }
    return out;
}

scenic_scu_counters SlotHandle::counters() const {
    auto c = sized<scenic_scu_counters>();
    if (const int r = file_->ioctl(SCENIC_SCU_IOC_COUNTERS, &c); r < 0) {
        throw ScenicError(-r, what("COUNTERS"), "the driver refused the query");
    }
    return c;
}

uint64_t SlotHandle::csr_ioctl(uint32_t index, bool write, uint64_t value) {
    auto c = sized<scenic_scu_csr>();
    c.index = index;
    c.write = write ? 1 : 0;
    c.value = value;
    if (const int r = file_->ioctl(SCENIC_SCU_IOC_CSR, &c); r < 0) {
        throw ScenicError(-r, what(write ? "CSR write" : "CSR read"),
                          "register " + std::to_string(index));
    }
    return c.value;
}

void SlotHandle::set_irq(unsigned line, int eventfd) {
    auto i = sized<scenic_scu_irq>();
    i.line = line;
    i.eventfd = eventfd;
    if (const int r = file_->ioctl(SCENIC_SCU_IOC_SET_IRQ, &i); r < 0) {
        throw ScenicError(-r, what("SET_IRQ"), "line " + std::to_string(line));
    }
}

void SlotHandle::set_policy(uint32_t policy) {
    auto p = sized<scenic_scu_policy>();
    p.qp_policy = policy;
    if (const int r = file_->ioctl(SCENIC_SCU_IOC_SET_POLICY, &p); r < 0) {
        throw ScenicError(-r, what("SET_POLICY"), "policy " + qp_policy_name(policy));
    }
}

uint32_t SlotHandle::steer_add(scenic_scu_steer_rule& rule) {
    rule.size = sizeof(rule);
    if (const int r = file_->ioctl(SCENIC_SCU_IOC_STEER_ADD, &rule); r < 0) {
        throw ScenicError(-r, what("STEER_ADD"),
                          -r == EPERM ? "steering needs the slot's owner with CAP_NET_ADMIN"
                                      : "the rule was refused");
    }
    return rule.rule_id;
}

void SlotHandle::steer_del(uint32_t rule_id) {
    auto d = sized<scenic_scu_steer_del>();
    d.rule_id = rule_id;
    if (const int r = file_->ioctl(SCENIC_SCU_IOC_STEER_DEL, &d); r < 0) {
        throw ScenicError(-r, what("STEER_DEL"), "rule " + std::to_string(rule_id));
    }
}

void SlotHandle::map() {
    const scenic_scu_info i = raw_info();
    if (i.csr_size >= 8 && i.csr_size <= SCENIC_SCU_CSR_WINDOW_SIZE) {
        csr_count_ = i.csr_size / 8;
        int err = 0;
        void* p = file_->mmap(i.csr_size, PROT_READ | PROT_WRITE, i.csr_mmap_offset, &err);
        if (p != nullptr) {
            csr_ = static_cast<volatile uint64_t*>(p);
            csr_len_ = i.csr_size;
        }
    }
    if (i.status_size >= 0x100 + sizeof(uint64_t) * 20) {
        int err = 0;
        void* p = file_->mmap(i.status_size, PROT_READ, i.status_mmap_offset, &err);
        if (p != nullptr) {
            status_ = static_cast<const volatile uint64_t*>(p);
            status_len_ = i.status_size;
        }
    }
}

}  // namespace scenic
