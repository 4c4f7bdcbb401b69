// SPDX-License-Identifier: MIT
// The verbs side of a ScenicThread: the card's ibv_context (scenic_<card>) and a PD, opened on
// first use, and scenicdv_create_qp_ex looked up in the provider libibverbs loaded (no link-time
// dependency on the provider: the runtime also runs where only the SCU device exists).
#pragma once

#include <infiniband/verbs.h>

#include <string>

namespace scenic {

class Verbs {
  public:
    explicit Verbs(unsigned card);  // throws ScenicError (ENODEV: no scenic_<card>)
    ~Verbs();
    Verbs(const Verbs&) = delete;
    Verbs& operator=(const Verbs&) = delete;
    [[nodiscard]] ibv_context* context() const { return ctx_; }
    [[nodiscard]] ibv_pd* pd() const { return pd_; }
    // scenicdv_create_qp_ex with scu_index = slot; throws ScenicError.
    ibv_qp* create_qp(ibv_qp_init_attr_ex& attr, unsigned slot);
    // scenicdv_bind_scu_pd: the slot owned through scu_fd reaches this PD's MRs; throws.
    void bind_scu(int scu_fd);

  private:
    std::string name_;
    ibv_context* ctx_ = nullptr;
    ibv_pd* pd_ = nullptr;
};

}  // namespace scenic
