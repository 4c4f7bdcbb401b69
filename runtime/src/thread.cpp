// SPDX-License-Identifier: MIT
// ScenicThread: the owner of one slot. CSRs through the mapped window, completions from the
// status page, interrupts through poll/read of the slot fd or per-line eventfds.
#include <endian.h>
#include <infiniband/verbs.h>

#include <cerrno>
#include <climits>

#include "scenic/scenic.hpp"
#include "slot_handle.hpp"
#include "verbs.hpp"

namespace scenic {

namespace {

constexpr size_t kStatusCompletions = 0x40 / 8;  // docs/scu.md 4.4: word index of remote_write

}  // namespace

ScenicThread::ScenicThread(unsigned slot, unsigned card, std::shared_ptr<sys::System> sys)
    : slot_(slot), card_(card) {
    if (!sys) {
        sys = sys::default_system();
    }
    owner_ = SlotHandle::owner(sys, card, slot);
    if (owner_->csr() == nullptr && owner_->status() == nullptr) {
        owner_->map();
    }
}

ScenicThread::~ScenicThread() { release(); }

// Detaches and closes this object's eventfds; the owner fd closes with its last user.
void ScenicThread::release() noexcept {
    if (!owner_) {
        return;
    }
    for (const auto& [line, fd] : eventfds_) {
        try {
            owner_->set_irq(line, -1);
        } catch (const ScenicError&) {
            // The card may be gone (reset): closing the eventfd is all that is left to do.
        }
        owner_->system().close_fd(fd);
    }
    eventfds_.clear();
    owner_.reset();
}

ScenicThread::ScenicThread(ScenicThread&&) noexcept = default;

ScenicThread& ScenicThread::operator=(ScenicThread&& o) noexcept {
    if (this != &o) {
        release();
        slot_ = o.slot_;
        card_ = o.card_;
        owner_ = std::move(o.owner_);
        verbs_ = std::move(o.verbs_);
        eventfds_ = std::move(o.eventfds_);
        o.eventfds_.clear();
    }
    return *this;
}

void ScenicThread::check_index(uint32_t offset) const {
    if (offset >= owner_->csr_count()) {
        throw ScenicError(EINVAL, owner_->what("CSR"),
                          "register " + std::to_string(offset) + " is outside the window of " +
                              std::to_string(owner_->csr_count()) + " registers");
    }
}

void ScenicThread::set_csr(uint64_t value, uint32_t offset) {
    check_index(offset);
    if (volatile uint64_t* w = owner_->csr()) {
        w[offset] = value;  // one 64-bit store (docs/scu.md 4.3)
        return;
    }
    owner_->csr_ioctl(offset, true, value);
}

uint64_t ScenicThread::get_csr(uint32_t offset) {
    check_index(offset);
    if (const volatile uint64_t* w = owner_->csr()) {
        return w[offset];
    }
    return owner_->csr_ioctl(offset, false, 0);
}

uint64_t ScenicThread::get_completed(std::string_view op) const {
    const auto& names = completion_names();
    for (size_t i = 0; i < names.size(); ++i) {
        if (names[i] != op) {
            continue;
        }
        if (const volatile uint64_t* s = owner_->status()) {
            return le64toh(s[kStatusCompletions + i]);  // single 8-byte writes by the card
        }
        return counters_from(owner_->counters()).at(op);
    }
    std::string all;
    for (const auto n : names) {
        all += (all.empty() ? "" : ", ") + std::string(n);
    }
    throw ScenicError(EINVAL, "get_completed",
                      "no completion counter '" + std::string(op) + "' (one of " + all + ")");
}

unsigned ScenicThread::wait_irq(std::chrono::milliseconds timeout) {
    const auto ms = timeout.count();
    if (ms < 0 || ms > INT_MAX) {
        throw ScenicError(EINVAL, owner_->what("wait_irq"), "timeout out of range");
    }
    const int n = owner_->file().poll(static_cast<int>(ms));
    if (n < 0) {
        throw ScenicError(-n, owner_->what("wait_irq"), "poll failed");
    }
    if (n == 0) {
        return 0;
    }
    scenic_scu_irq_event ev{};
    const ssize_t r = owner_->file().read(&ev, sizeof(ev));
    if (r == -EAGAIN) {
        return 0;  // another reader took it
    }
    if (r < 0) {
        throw ScenicError(static_cast<int>(-r), owner_->what("wait_irq"), "read failed");
    }
    if (static_cast<size_t>(r) != sizeof(ev)) {
        throw ScenicError(EIO, owner_->what("wait_irq"),
                          "short interrupt record (" + std::to_string(r) + " bytes)");
    }
    return ev.pending;
}

int ScenicThread::irq_fd(unsigned line) {
    for (const auto& [l, fd] : eventfds_) {
        if (l == line) {
            return fd;
        }
    }
    const int fd = owner_->system().make_eventfd();
    if (fd < 0) {
        throw ScenicError(-fd, owner_->what("irq_fd"), "eventfd");
    }
    try {
        owner_->set_irq(line, fd);
    } catch (...) {
        owner_->system().close_fd(fd);
        throw;
    }
    eventfds_.emplace_back(line, fd);
    return fd;
}

int ScenicThread::fd() const { return owner_->file().fd(); }

bool ScenicThread::csr_mapped() const { return owner_->csr() != nullptr; }

Counters ScenicThread::counters() const { return counters_from(owner_->counters()); }

SlotInfo ScenicThread::info() const { return owner_->info(); }

std::shared_ptr<Verbs> ScenicThread::verbs() const {
    if (!verbs_) {
        verbs_ = std::make_shared<Verbs>(card_);
    }
    return verbs_;
}

ibv_context* ScenicThread::context() const { return verbs()->context(); }
ibv_pd* ScenicThread::pd() const { return verbs()->pd(); }

Buffer ScenicThread::alloc(size_t bytes) {
    return Buffer(bytes, verbs(),
                  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
}

MemoryRegion ScenicThread::reg(void* addr, size_t bytes, int access) {
    if (addr == nullptr || bytes == 0) {
        throw ScenicError(EINVAL, "reg", "empty buffer");
    }
    auto v = verbs();
    ibv_mr* mr = ibv_reg_mr(v->pd(), addr, bytes, access);
    if (mr == nullptr) {
        throw ScenicError(errno ? errno : ENOMEM, "reg",
                          "ibv_reg_mr of " + std::to_string(bytes) + " bytes");
    }
    return MemoryRegion(std::move(v), mr);
}

void ScenicThread::bind_pd() { verbs()->bind_scu(fd()); }

Qp ScenicThread::create_qp(const QpAttr& a) {
    auto v = verbs();
    ibv_cq* cq = ibv_create_cq(v->context(), a.cq_entries, nullptr, nullptr, 0);
    if (cq == nullptr) {
        throw ScenicError(errno ? errno : ENOMEM, "create_qp", "ibv_create_cq");
    }
    ibv_qp_init_attr_ex attr{};
    attr.send_cq = cq;
    attr.recv_cq = cq;
    attr.qp_type = IBV_QPT_RC;
    attr.cap.max_send_wr = a.max_send_wr;
    attr.cap.max_recv_wr = a.max_recv_wr;
    attr.cap.max_send_sge = a.max_send_sge;
    attr.cap.max_recv_sge = a.max_recv_sge;
    attr.cap.max_inline_data = a.max_inline_data;
    attr.comp_mask = IBV_QP_INIT_ATTR_PD;
    attr.pd = v->pd();
    try {
        ibv_qp* qp = v->create_qp(attr, slot_);
        return Qp(std::move(v), cq, qp);
    } catch (...) {
        ibv_destroy_cq(cq);
        throw;
    }
}

}  // namespace scenic
