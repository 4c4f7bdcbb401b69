// SPDX-License-Identifier: MIT
#include "verbs.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "scenic/scenic.hpp"
#include "scenicdv.h"  // providers/scenic: the provider's public dv header

namespace scenic {

namespace {

using CreateQpEx = ibv_qp* (*)(ibv_context*, ibv_qp_init_attr_ex*, scenicdv_qp_init_attr*,
                               uint32_t);
using BindScuPd = int (*)(ibv_pd*, int);

// The provider's soname (providers/Makefile): libibverbs has it loaded once a scenic device was
// opened, so RTLD_NOLOAD finds that copy (a second copy would not recognise the context).
void* find_provider_symbol(const char* name) {
    void* h = dlopen("libscenic.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (h == nullptr) {
        h = dlopen("libscenic.so.1", RTLD_NOW);
    }
    return h == nullptr ? nullptr : dlsym(h, name);
}

}  // namespace

Verbs::Verbs(unsigned card) : name_("scenic_" + std::to_string(card)) {
    int n = 0;
    ibv_device** list = ibv_get_device_list(&n);
    if (list == nullptr) {
        // ENOSYS from libibverbs means no uverbs in the kernel: no device either way.
        throw ScenicError(
            ENODEV, "verbs",
            std::string("no RDMA devices (libibverbs: ") + std::strerror(errno) + ")");
    }
    for (int i = 0; i < n && ctx_ == nullptr; ++i) {
        if (name_ == ibv_get_device_name(list[i])) {
            ctx_ = ibv_open_device(list[i]);
        }
    }
    ibv_free_device_list(list);
    if (ctx_ == nullptr) {
        throw ScenicError(ENODEV, "verbs", "no RDMA device " + name_);
    }
    pd_ = ibv_alloc_pd(ctx_);
    if (pd_ == nullptr) {
        const int err = errno ? errno : ENOMEM;
        ibv_close_device(ctx_);
        throw ScenicError(err, "verbs", "ibv_alloc_pd on " + name_);
    }
}

Verbs::~Verbs() {
    ibv_dealloc_pd(pd_);
    ibv_close_device(ctx_);
}

ibv_qp* Verbs::create_qp(ibv_qp_init_attr_ex& attr, unsigned slot) {
    static const auto create =
        reinterpret_cast<CreateQpEx>(find_provider_symbol("scenicdv_create_qp_ex"));
    if (create == nullptr) {
        throw ScenicError(ENOSYS, "create_qp",
                          "scenicdv_create_qp_ex not found: the SCENIC provider (libscenic.so.1) "
                          "is not installed");
    }
    scenicdv_qp_init_attr dv{};
    dv.scu_index = static_cast<uint16_t>(slot);
    errno = 0;
    ibv_qp* qp = create(ctx_, &attr, &dv, sizeof(dv));
    if (qp == nullptr) {
        throw ScenicError(errno ? errno : EINVAL, "create_qp",
                          "scenicdv_create_qp_ex on slot " + std::to_string(slot));
    }
    return qp;
}

void Verbs::bind_scu(int scu_fd) {
    static const auto bind =
        reinterpret_cast<BindScuPd>(find_provider_symbol("scenicdv_bind_scu_pd"));
    if (bind == nullptr) {
        throw ScenicError(ENOSYS, "bind_pd",
                          "scenicdv_bind_scu_pd not found: the SCENIC provider (libscenic.so.1) "
                          "is older than SCENIC_1.1 or not installed");
    }
    const int err = bind(pd_, scu_fd);
    if (err != 0) {
        throw ScenicError(err, "bind_pd", "scenicdv_bind_scu_pd on " + name_);
    }
}

MemoryRegion::MemoryRegion(std::shared_ptr<Verbs> v, ibv_mr* mr) : verbs_(std::move(v)), mr_(mr) {}
MemoryRegion::~MemoryRegion() { reset(); }
MemoryRegion::MemoryRegion(MemoryRegion&& o) noexcept
    : verbs_(std::move(o.verbs_)), mr_(std::exchange(o.mr_, nullptr)) {}
MemoryRegion& MemoryRegion::operator=(MemoryRegion&& o) noexcept {
    if (this != &o) {
        reset();
        verbs_ = std::move(o.verbs_);
        mr_ = std::exchange(o.mr_, nullptr);
    }
    return *this;
}
void MemoryRegion::reset() {
    if (mr_ != nullptr) {
        ibv_dereg_mr(mr_);
        mr_ = nullptr;
    }
}
uint32_t MemoryRegion::lkey() const { return mr_ ? mr_->lkey : 0; }
uint32_t MemoryRegion::rkey() const { return mr_ ? mr_->rkey : 0; }
void* MemoryRegion::addr() const { return mr_ ? mr_->addr : nullptr; }
size_t MemoryRegion::length() const { return mr_ ? mr_->length : 0; }

void Buffer::Free::operator()(uint8_t* p) const { std::free(p); }

Buffer::Buffer(size_t bytes, std::shared_ptr<Verbs> v, int access) : size_(bytes) {
    if (bytes == 0) {
        throw ScenicError(EINVAL, "alloc", "zero bytes");
    }
    const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void* p = nullptr;
    if (posix_memalign(&p, page, (bytes + page - 1) / page * page) != 0) {
        throw ScenicError(ENOMEM, "alloc", std::to_string(bytes) + " bytes");
    }
    mem_.reset(static_cast<uint8_t*>(p));
    std::memset(p, 0, bytes);
    ibv_mr* mr = ibv_reg_mr(v->pd(), p, bytes, access);
    if (mr == nullptr) {
        throw ScenicError(errno ? errno : ENOMEM, "alloc", "ibv_reg_mr");
    }
    mr_ = MemoryRegion(std::move(v), mr);
}

Qp::Qp(std::shared_ptr<Verbs> v, ibv_cq* cq, ibv_qp* qp) : verbs_(std::move(v)), cq_(cq), qp_(qp) {}
Qp::Qp(Qp&& o) noexcept
    : verbs_(std::move(o.verbs_)),
      cq_(std::exchange(o.cq_, nullptr)),
      qp_(std::exchange(o.qp_, nullptr)) {}
Qp::~Qp() {
    if (qp_ != nullptr) {
        ibv_destroy_qp(qp_);
    }
    if (cq_ != nullptr) {
        ibv_destroy_cq(cq_);
    }
}
uint32_t Qp::qp_num() const { return qp_ ? qp_->qp_num : 0; }

}  // namespace scenic
