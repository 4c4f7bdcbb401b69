// SPDX-License-Identifier: MIT
// ScenicReconfig: loads, unloads and queries slots; owner only for the call unless this process
// already holds the slot through a ScenicThread.
#include <cerrno>

#include "scenic/scenic.hpp"
#include "slot_handle.hpp"

namespace scenic {

namespace {

std::shared_ptr<SlotHandle> owner_for_call(const std::shared_ptr<sys::System>& sys, unsigned card,
                                           unsigned slot) {
    if (auto h = SlotHandle::find_owner(sys, card, slot)) {
        return h;
    }
    // Not registered: this call's open closes when the call returns.
    return std::make_shared<SlotHandle>(sys, card, slot, true);
}

}  // namespace

std::string state_name(uint32_t state) {
    switch (state) {
        case SCENIC_SCU_STATE_RUNNING:
            return "RUNNING";
        case SCENIC_SCU_STATE_DRAINING:
            return "DRAINING";
        case SCENIC_SCU_STATE_LOADING:
            return "LOADING";
        case SCENIC_SCU_STATE_FAILED:
            return "FAILED";
        default:
            return "UNKNOWN(" + std::to_string(state) + ")";
    }
}

std::string qp_policy_name(uint32_t policy) {
    switch (policy) {
        case SCENIC_SCU_QP_SAME_UID:
            return "same-uid";
        case SCENIC_SCU_QP_BOUND_PD:
            return "bound-pd";
        case SCENIC_SCU_QP_ANY:
            return "any";
        default:
            return "unknown(" + std::to_string(policy) + ")";
    }
}

int qp_policy_from_name(std::string_view name) {
    for (uint32_t p = 0; p <= SCENIC_SCU_QP_ANY; ++p) {
        if (qp_policy_name(p) == name) {
            return static_cast<int>(p);
        }
    }
    return -1;
}

ScenicReconfig::ScenicReconfig(unsigned card, std::shared_ptr<sys::System> sys)
    : card_(card), sys_(sys ? std::move(sys) : sys::default_system()) {}

ReconfigResult ScenicReconfig::reconfigure_app(unsigned slot, const std::string& path,
                                               const ReconfigOptions& opt) {
    const std::vector<uint8_t> image = read_file(path, SCENIC_SCU_MAX_IMAGE_LEN);
    return reconfigure_image(slot, image, opt);
}

ReconfigResult ScenicReconfig::reconfigure_image(unsigned slot, std::span<const uint8_t> image,
                                                 const ReconfigOptions& opt) {
    if (image.size() > SCENIC_SCU_MAX_IMAGE_LEN) {
        throw ScenicError(EFBIG, "LOAD", "image larger than 64 MiB", LoadStatus::kTooLarge);
    }
    return owner_for_call(sys_, card_, slot)->load(image, opt, false);
}

ReconfigResult ScenicReconfig::unload(unsigned slot, const ReconfigOptions& opt) {
    return owner_for_call(sys_, card_, slot)->load({}, opt, true);
}

SlotInfo ScenicReconfig::info(unsigned slot) const {
    if (auto h = SlotHandle::find_owner(sys_, card_, slot)) {
        return h->info();
    }
    return SlotHandle(sys_, card_, slot, false).info();
}

std::vector<SlotInfo> ScenicReconfig::slots() const {
    std::vector<SlotInfo> out;
    out.push_back(info(0));
    const unsigned n = out.front().num_slots;
    for (unsigned s = 1; s < n && s < kMaxSlots; ++s) {
        out.push_back(info(s));
    }
    return out;
}

Counters ScenicReconfig::counters(unsigned slot) const {
    const auto h = SlotHandle::find_owner(sys_, card_, slot);
    const scenic_scu_counters c =
        h ? h->counters() : SlotHandle(sys_, card_, slot, false).counters();
    return counters_from(c);
}

void ScenicReconfig::set_policy(unsigned slot, uint32_t qp_policy) {
    owner_for_call(sys_, card_, slot)->set_policy(qp_policy);
}

uint64_t ScenicReconfig::read_csr(unsigned slot, uint32_t index) {
    return owner_for_call(sys_, card_, slot)->csr_ioctl(index, false, 0);
}

void ScenicReconfig::write_csr(unsigned slot, uint32_t index, uint64_t value) {
    owner_for_call(sys_, card_, slot)->csr_ioctl(index, true, value);
}

}  // namespace scenic
