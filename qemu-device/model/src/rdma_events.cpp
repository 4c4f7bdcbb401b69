// SPDX-License-Identifier: MIT
#include "scenic/rdma_events.hpp"

#include <array>

namespace scenic::rdma {

namespace {

using Entry = std::array<uint8_t, 32>;

template <template <typename> class View>
View<uint8_t> view(Entry& e, admin::AeqType type) {
    const View<uint8_t> v{std::span<uint8_t, 32>(e)};
    v.set_type(static_cast<uint8_t>(type));
    return v;
}

}  // namespace

bool Events::qp_error(uint32_t qpn, admin::QpErr code, uint8_t syndrome) {
    Entry e{};
    const auto v = view<admin::AeqeQpError>(e, admin::AeqType::kQpError);
    v.set_qpn(qpn);
    v.set_code(static_cast<uint8_t>(code));
    v.set_syndrome(syndrome);
    return aeq_.push(e);
}

bool Events::sq_drained(uint32_t qpn) {
    Entry e{};
    view<admin::AeqeSqDrained>(e, admin::AeqType::kSqDrained).set_qpn(qpn);
    return aeq_.push(e);
}

bool Events::cq_error(uint32_t cqn, admin::CqErr code) {
    Entry e{};
    const auto v = view<admin::AeqeCqError>(e, admin::AeqType::kCqError);
    v.set_cqn(cqn);
    v.set_code(static_cast<uint8_t>(code));
    return aeq_.push(e);
}

bool Events::tlb_miss(uint32_t key, uint64_t page) {
    Entry e{};
    const auto v = view<admin::AeqeTlbMiss>(e, admin::AeqType::kTlbMiss);
    v.set_key(key);
    v.set_iova(page);
    return aeq_.push(e);
}

bool Events::srq_limit(uint32_t srqn, uint32_t posted) {
    Entry e{};
    const auto v = view<admin::AeqeSrqLimit>(e, admin::AeqType::kSrqLimit);
    v.set_srqn(srqn);
    v.set_posted(posted);
    return aeq_.push(e);
}

bool Events::cq_notify(uint32_t cqn) {
    Entry e{};
    const admin::Ceqe<> v{std::span<uint8_t, 32>(e).first<8>()};
    v.set_type(static_cast<uint8_t>(admin::CeqType::kCqNotify));
    v.set_cqn(cqn);
    return ceq_.push(e);
}

}  // namespace scenic::rdma
