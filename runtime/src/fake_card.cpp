// SPDX-License-Identifier: MIT
#include "scenic/fake_card.hpp"

#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "scenic/image.hpp"
#include "scenic/scenic.hpp"
#include "uapi/scenic_scu.h"

namespace scenic::testing {

namespace {

constexpr uint64_t kCsrOffset = 0;
constexpr uint64_t kStatusOffset = 1ULL << 16;
constexpr uint32_t kStatusSize = 4096;
constexpr uint32_t kReconfigUs = 8000;
constexpr uint32_t kSteerRules = 64;                        // SCU.STEER_RULES on the model
constexpr uint64_t kPassthroughId = 0x5343555041535331ULL;  // "SCUPASS1" (docs/scu.md 8)

#define SCENIC_FAKE_NAME(n) #n,
constexpr std::array<std::string_view, 7> kCompletions{
    SCENIC_SCU_COMPLETION_COUNTERS(SCENIC_FAKE_NAME)};
constexpr std::array<std::string_view, 20> kTraffic{SCENIC_SCU_TRAFFIC_COUNTERS(SCENIC_FAKE_NAME)};
#undef SCENIC_FAKE_NAME

// The kernel's struct discipline (uapi/scenic_scu.h): exact size here, comp_mask zero.
template <typename T>
int check_struct(const void* arg) {
    const auto* h = static_cast<const uint32_t*>(arg);
    if (h[0] != sizeof(T)) {
        return -EINVAL;
    }
    return h[1] != 0 ? -EINVAL : 0;
}

}  // namespace

struct FakeCard::Slot {
    unsigned index = 0;
    File* owner = nullptr;
    uint32_t state = SCENIC_SCU_STATE_RUNNING;
    uint32_t kind = 1;
    uint16_t kind_version = 1;
    uint64_t build_id = 0;
    std::string name = "passthrough";
    std::array<uint8_t, 32> sha{};
    uint64_t loads = 0, last_pause_ns = 0;
    uint32_t policy = SCENIC_SCU_QP_SAME_UID;
    std::vector<uint64_t> csr = std::vector<uint64_t>(SCENIC_SCU_CSR_COUNT);
    std::vector<uint64_t> status = std::vector<uint64_t>(kStatusSize / 8);
    std::array<int, SCENIC_SCU_MAX_IRQ_LINES> eventfd{-1, -1, -1, -1};
    std::vector<scenic_scu_steer_rule> rules;

    void reset_scu() {
        std::fill(csr.begin(), csr.end(), 0);
        csr[0] = kPassthroughId;
        csr[3] = 65536;  // BURST
    }
};

class FakeCard::File final : public sys::SlotFile {
  public:
    File(std::shared_ptr<FakeCard> card, Slot& slot, bool owner)
        : card_(std::move(card)), slot_(slot), owner_(owner) {}
    ~File() override {
        const std::lock_guard lock(card_->mu_);
        --card_->files_;
        if (slot_.owner == this) {
            slot_.owner = nullptr;  // closing the owner detaches its eventfds (docs/scu.md 5)
            slot_.eventfd.fill(-1);
        }
    }
    File(const File&) = delete;
    File& operator=(const File&) = delete;

    [[nodiscard]] int fd() const override { return -1; }
    int ioctl(unsigned long req, void* arg) override { return card_->ioctl(*this, req, arg); }
    void* mmap(size_t len, int prot, uint64_t offset, int* err) override {
        const std::lock_guard lock(card_->mu_);
        if (card_->refuse_mmap_) {
            *err = ENODEV;
            return nullptr;
        }
        if (offset == kCsrOffset && len == SCENIC_SCU_CSR_WINDOW_SIZE) {
            if (slot_.owner != this) {
                *err = EACCES;
                return nullptr;
            }
            ++card_->maps_;
            return slot_.csr.data();
        }
        if (offset == kStatusOffset && len == kStatusSize && (prot & PROT_WRITE) == 0) {
            ++card_->maps_;
            return slot_.status.data();
        }
        *err = EINVAL;
        return nullptr;
    }
    void munmap(void* /*addr*/, size_t /*len*/) override {
        const std::lock_guard lock(card_->mu_);
        --card_->maps_;
    }
    int poll(int timeout_ms) override {
        const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
        for (;;) {
            {
                const std::lock_guard lock(card_->mu_);
                if (pending_ != 0) {
                    return 1;
                }
            }
            if (std::chrono::steady_clock::now() >= end) {
                return 0;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
    ssize_t read(void* buf, size_t len) override {
        const std::lock_guard lock(card_->mu_);
        if (len < sizeof(scenic_scu_irq_event)) {
            return -EINVAL;
        }
        if (pending_ == 0) {
            return -EAGAIN;
        }
        scenic_scu_irq_event ev{pending_, SCENIC_SCU_MAX_IRQ_LINES, total_};
        std::memcpy(buf, &ev, sizeof(ev));
        pending_ = 0;
        return sizeof(ev);
    }

    std::shared_ptr<FakeCard> card_;
    Slot& slot_;
    bool owner_;
    uint32_t pending_ = 0;
    uint64_t total_ = 0;
};

FakeCard::FakeCard(unsigned num_slots, unsigned card) : card_(card) {
    for (unsigned i = 0; i < num_slots; ++i) {
        auto s = std::make_unique<Slot>();
        s->index = i;
        s->reset_scu();
        slots_.push_back(std::move(s));
    }
}

FakeCard::~FakeCard() = default;

std::unique_ptr<sys::SlotFile> FakeCard::open_slot(unsigned card, unsigned slot, bool owner,
                                                   int* err) {
    const std::lock_guard lock(mu_);
    if (card != card_ || slot >= slots_.size()) {
        *err = ENOENT;
        return nullptr;
    }
    Slot& s = *slots_[slot];
    if (owner && slot == 0) {
        *err = EPERM;
        return nullptr;
    }
    if (owner && s.owner != nullptr) {
        *err = EBUSY;
        return nullptr;
    }
    auto f = std::make_unique<File>(shared_from_this(), s, owner);
    if (owner) {
        s.owner = f.get();
    }
    ++files_;
    return f;
}

int FakeCard::make_eventfd() {
    const int fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    return fd < 0 ? -errno : fd;
}

void FakeCard::close_fd(int fd) { ::close(fd); }

int FakeCard::ioctl(File& f, unsigned long req, void* arg) {
    const std::lock_guard lock(mu_);
    Slot& s = f.slot_;
    const bool owner = s.owner == &f;
    switch (req) {
        case SCENIC_SCU_IOC_INFO: {
            if (const int r = check_struct<scenic_scu_info>(arg)) {
                return r;
            }
            auto* i = static_cast<scenic_scu_info*>(arg);
            *i = {};
            i->size = sizeof(*i);
            i->card = static_cast<uint16_t>(card_);
            i->slot = static_cast<uint16_t>(s.index);
            i->num_slots = static_cast<uint16_t>(slots_.size());
            i->irq_lines = SCENIC_SCU_MAX_IRQ_LINES;
            i->state = s.state;
            i->flags = (s.owner ? uint32_t{SCENIC_SCU_INFO_OWNED} : 0U) |
                       (s.index == 0 ? uint32_t{SCENIC_SCU_INFO_FIXED} : 0U) |
                       (owner ? uint32_t{SCENIC_SCU_INFO_OWNER_IS_ME} : 0U);
            i->iface_version = 0x00010000;
            i->data_width = 512;
            i->kind = s.kind;
            i->kind_version = s.kind_version;
            i->build_id = s.build_id;
            std::memcpy(i->name, s.name.data(), std::min(s.name.size(), sizeof(i->name) - 1));
            std::memcpy(i->image_sha256, s.sha.data(), s.sha.size());
            i->csr_size = SCENIC_SCU_CSR_WINDOW_SIZE;
            i->csr_mmap_offset = kCsrOffset;
            i->status_mmap_offset = kStatusOffset;
            i->status_size = kStatusSize;
            i->reconfig_delay_us = kReconfigUs;
            i->loads = s.loads;
            i->last_pause_ns = s.last_pause_ns;
            i->qp_policy = s.policy;
            i->steer_rules_max = kSteerRules;
            i->steer_rules_used = static_cast<uint32_t>(s.rules.size());
            return 0;
        }
        case SCENIC_SCU_IOC_LOAD:
        case SCENIC_SCU_IOC_UNLOAD: {
            if (const int r = check_struct<scenic_scu_load>(arg)) {
                return r;
            }
            auto* l = static_cast<scenic_scu_load*>(arg);
            const auto done = [l](LoadStatus st) {
                l->status = static_cast<uint32_t>(st);
                return -load_status_errno(st);
            };
            if (!owner) {
                return -EBADF;  // as scenic_scu.ko: an observer's fd is not open for writing
            }
            const bool unload = req == SCENIC_SCU_IOC_UNLOAD;
            if (unload && (l->image_ptr != 0 || l->image_len != 0)) {
                return -EINVAL;
            }
            if (l->flags &
                ~static_cast<uint32_t>(SCENIC_SCU_LOAD_DRY_RUN | SCENIC_SCU_LOAD_FORCE)) {
                return -EINVAL;
            }
            if (l->image_len > SCENIC_SCU_MAX_IMAGE_LEN) {
                return done(LoadStatus::kTooLarge);
            }
            ImageHeader h;
            if (!unload) {
                const std::span<const uint8_t> img(
                    reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(l->image_ptr)),
                    static_cast<size_t>(l->image_len));
                const ImageCheck c = check_image(img);
                if (!c.ok()) {
                    return done(c.status);
                }
                if (kinds_.count({c.header.kind, c.header.kind_version}) == 0) {
                    return done(LoadStatus::kUnknownKind);
                }
                h = c.header;
            }
            if (l->flags & SCENIC_SCU_LOAD_DRY_RUN) {
                return done(LoadStatus::kOk);
            }
            s.kind = unload ? 1 : h.kind;
            s.kind_version = unload ? 1 : h.kind_version;
            s.name = unload ? "passthrough" : h.name;
            s.build_id = unload ? 0 : h.build_id;
            s.sha = unload ? std::array<uint8_t, 32>{} : h.payload_sha256;
            s.reset_scu();
            ++s.loads;
            s.last_pause_ns = kReconfigUs * 1000ULL;
            l->pause_ns = s.last_pause_ns;
            l->total_ns = s.last_pause_ns + 150000;
            return done(LoadStatus::kOk);
        }
        case SCENIC_SCU_IOC_COUNTERS: {
            if (const int r = check_struct<scenic_scu_counters>(arg)) {
                return r;
            }
            auto* c = static_cast<scenic_scu_counters*>(arg);
            auto* words = reinterpret_cast<uint64_t*>(c);
            for (size_t i = 0; i < kCompletions.size(); ++i) {
                words[1 + i] = s.status[0x40 / 8 + i];
            }
            for (size_t i = 0; i < kTraffic.size(); ++i) {
                words[1 + kCompletions.size() + i] = s.status[0x100 / 8 + i];
            }
            return 0;
        }
        case SCENIC_SCU_IOC_CSR: {
            if (const int r = check_struct<scenic_scu_csr>(arg)) {
                return r;
            }
            auto* c = static_cast<scenic_scu_csr*>(arg);
            if (!owner) {
                return -EBADF;  // as scenic_scu.ko: an observer's fd is not open for writing
            }
            if (c->index >= SCENIC_SCU_CSR_COUNT || c->write > 1) {
                return -EINVAL;
            }
            if (c->write) {
                s.csr[c->index] = c->value;
            } else {
                c->value = s.csr[c->index];
            }
            return 0;
        }
        case SCENIC_SCU_IOC_SET_IRQ: {
            if (const int r = check_struct<scenic_scu_irq>(arg)) {
                return r;
            }
            auto* i = static_cast<scenic_scu_irq*>(arg);
            if (!owner) {
                return -EBADF;  // as scenic_scu.ko: an observer's fd is not open for writing
            }
            if (i->line >= SCENIC_SCU_MAX_IRQ_LINES || i->eventfd < -1) {
                return -EINVAL;
            }
            s.eventfd[i->line] = i->eventfd;
            return 0;
        }
        case SCENIC_SCU_IOC_SET_POLICY: {
            if (const int r = check_struct<scenic_scu_policy>(arg)) {
                return r;
            }
            auto* p = static_cast<scenic_scu_policy*>(arg);
            if (!owner) {
                return -EBADF;  // as scenic_scu.ko: an observer's fd is not open for writing
            }
            if (p->qp_policy > SCENIC_SCU_QP_ANY) {
                return -EINVAL;
            }
            s.policy = p->qp_policy;
            return 0;
        }
        case SCENIC_SCU_IOC_STEER_ADD: {
            if (const int r = check_struct<scenic_scu_steer_rule>(arg)) {
                return r;
            }
            auto* rule = static_cast<scenic_scu_steer_rule*>(arg);
            if (!owner) {
                return -EBADF;  // as scenic_scu.ko: an observer's fd is not open for writing
            }
            const uint32_t dirs = SCENIC_SCU_STEER_DIR_RX | SCENIC_SCU_STEER_DIR_TX;
            if ((rule->flags & ~(dirs | SCENIC_SCU_STEER_IPV6)) != 0 || (rule->flags & dirs) == 0) {
                return -EINVAL;
            }
            size_t used = 0;
            for (const auto& sl : slots_) {
                used += sl->rules.size();
            }
            if (used >= kSteerRules) {
                return -ENOSPC;
            }
            rule->rule_id = next_rule_++;
            s.rules.push_back(*rule);
            return 0;
        }
        case SCENIC_SCU_IOC_STEER_DEL: {
            if (const int r = check_struct<scenic_scu_steer_del>(arg)) {
                return r;
            }
            const auto* d = static_cast<const scenic_scu_steer_del*>(arg);
            if (!owner) {
                return -EBADF;  // as scenic_scu.ko: an observer's fd is not open for writing
            }
            const auto it = std::find_if(s.rules.begin(), s.rules.end(),
                                         [d](const auto& x) { return x.rule_id == d->rule_id; });
            if (it == s.rules.end()) {
                return -ENOENT;
            }
            s.rules.erase(it);
            return 0;
        }
        default:
            return -ENOTTY;
    }
}

void FakeCard::raise_irq(unsigned slot, uint32_t lines) {
    const std::lock_guard lock(mu_);
    Slot& s = *slots_.at(slot);
    lines &= (1U << SCENIC_SCU_MAX_IRQ_LINES) - 1;
    if (s.owner == nullptr || lines == 0) {
        return;  // delivered only to the owner (docs/scu.md 6.5)
    }
    s.owner->pending_ |= lines;
    ++s.owner->total_;
    for (unsigned l = 0; l < SCENIC_SCU_MAX_IRQ_LINES; ++l) {
        if ((lines & (1U << l)) != 0 && s.eventfd[l] >= 0) {
            const uint64_t one = 1;
            if (::write(s.eventfd[l], &one, sizeof(one)) < 0) {
                // a full eventfd counter: the notification is already pending
            }
        }
    }
}

void FakeCard::set_completed(unsigned slot, std::string_view op, uint64_t value) {
    const std::lock_guard lock(mu_);
    const auto it = std::find(kCompletions.begin(), kCompletions.end(), op);
    if (it == kCompletions.end()) {
        throw std::invalid_argument("no completion counter " + std::string(op));
    }
    slots_.at(slot)->status[0x40 / 8 + static_cast<size_t>(it - kCompletions.begin())] = value;
}

void FakeCard::set_traffic(unsigned slot, std::string_view counter, uint64_t value) {
    const std::lock_guard lock(mu_);
    const auto it = std::find(kTraffic.begin(), kTraffic.end(), counter);
    if (it == kTraffic.end()) {
        throw std::invalid_argument("no counter " + std::string(counter));
    }
    slots_.at(slot)->status[0x100 / 8 + static_cast<size_t>(it - kTraffic.begin())] = value;
}

bool FakeCard::owned(unsigned slot) const {
    const std::lock_guard lock(mu_);
    return slots_.at(slot)->owner != nullptr;
}

uint64_t FakeCard::csr(unsigned slot, uint32_t index) const {
    const std::lock_guard lock(mu_);
    return slots_.at(slot)->csr.at(index);
}

uint32_t FakeCard::kind(unsigned slot) const {
    const std::lock_guard lock(mu_);
    return slots_.at(slot)->kind;
}

int FakeCard::eventfd_of(unsigned slot, unsigned line) const {
    const std::lock_guard lock(mu_);
    return slots_.at(slot)->eventfd.at(line);
}

std::vector<scenic_scu_steer_rule> FakeCard::rules(unsigned slot) const {
    const std::lock_guard lock(mu_);
    return slots_.at(slot)->rules;
}

unsigned FakeCard::open_files() const {
    const std::lock_guard lock(mu_);
    return files_;
}

unsigned FakeCard::mappings() const {
    const std::lock_guard lock(mu_);
    return maps_;
}

}  // namespace scenic::testing
