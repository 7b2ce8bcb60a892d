// SPDX-License-Identifier: BSD-3-Clause
// The libfabric side: one RDM endpoint with tagged messages, its completion
// queue and address vector, for the peers the base gives the ofi transport.
#ifndef MERIDIAN_MSG_OFI_FABRIC_HPP
#define MERIDIAN_MSG_OFI_FABRIC_HPP

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_tagged.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <meridian/opal/util/result.hpp>

#include "components/msg_ofi/msg_ofi_libfabric.hpp"

namespace meridian::msg_ofi
{

// Closes any libfabric object (fi_close on its fid).
struct FidCloser {
    template <typename T> void operator()(T *object) const
    {
        if (object != nullptr) {
            fi_close(&object->fid);
        }
    }
};
template <typename T> using FidPtr = std::unique_ptr<T, FidCloser>;

struct InfoDeleter {
    void operator()(fi_info *info) const { libfabric::freeinfo(info); }
};
using InfoPtr = std::unique_ptr<fi_info, InfoDeleter>;

class Endpoint
{
  public:
    // provider: "auto" (the first RDM + tagged provider fi_getinfo offers
    // other than shm; shm itself only when every peer shares this node and
    // nothing else is offered) or a name as fi_getinfo knows it ("tcp",
    // "tcp;ofi_rxm", "shm", ...).  FI_PROVIDER in the environment filters
    // fi_getinfo's answer first.  source: the address and port pnet
    // assigned this process ("10.1.2.3", "32000"), tried first (FI_SOURCE:
    // the endpoint listens there, on that NIC); empty, or when no provider
    // takes it, libfabric chooses.
    struct Source {
        std::string node;
        std::string service;
    };
    static Result<std::unique_ptr<Endpoint>> open(const std::string &provider, bool single_node,
                                                  const Source &source);
    // What open() would take, without opening it: the provider's name and
    // the address its endpoint would listen on (fi_info's src_addr, a
    // sockaddr; empty when the provider names none), for the offer.
    struct Choice {
        std::string provider;
        std::vector<std::uint8_t> address;
        std::string bound_to;       // "10.1.2.3:32000": the pnet endpoint, else empty
        std::string unbound_reason; // why not
    };
    static Result<Choice> choice(const std::string &provider, bool single_node,
                                 const Source &source);
    // What fi_getinfo offers for the hints (for the component's query).
    static bool any_provider();
    // Whether a provider named in msg_ofi_provider is offered, for a job
    // whose peers it does not reach (all on this node): the same setting
    // must not work here and fail on two nodes.  "auto": always.
    static Status check_provider(const std::string &provider);

    Endpoint() = default; // use open()
    ~Endpoint();
    Endpoint(const Endpoint &) = delete;
    Endpoint &operator=(const Endpoint &) = delete;

    const std::string &provider() const { return provider_; }
    const std::string &domain_name() const { return domain_name_; }
    // "10.1.2.3:32000" when bound to the pnet endpoint, else empty; why not.
    const std::string &bound_to() const { return bound_to_; }
    const std::string &unbound_reason() const { return unbound_reason_; }
    std::vector<std::uint8_t> address() const;
    Result<fi_addr_t> insert(std::span<const std::uint8_t> address);
    // Registered memory keeps a descriptor only when the provider asks for
    // local registration (FI_MR_LOCAL).
    bool needs_registration() const { return needs_registration_; }
    Result<FidPtr<fid_mr>> register_memory(const void *base, std::size_t bytes);

    // Stop the endpoint (before the memory of posted operations is freed).
    void close_endpoint() { ep_.reset(); }
    fid_ep *ep() const { return ep_.get(); }
    fid_cq *cq() const { return cq_.get(); }
    std::size_t tx_iov_limit() const { return tx_iov_limit_; }
    std::size_t rx_iov_limit() const { return rx_iov_limit_; }
    std::size_t inject_size() const { return inject_size_; }
    unsigned tag_bits() const { return tag_bits_; }

  private:
    static Result<std::unique_ptr<Endpoint>> create(const fi_info *chosen);

    InfoPtr info_;
    FidPtr<fid_fabric> fabric_;
    FidPtr<fid_domain> domain_;
    FidPtr<fid_cq> cq_;
    FidPtr<fid_av> av_;
    FidPtr<fid_ep> ep_;
    std::string provider_;
    std::string domain_name_;
    std::string bound_to_;
    std::string unbound_reason_;
    bool needs_registration_ = false;
    std::size_t tx_iov_limit_ = 1;
    std::size_t rx_iov_limit_ = 1;
    std::size_t inject_size_ = 0;
    unsigned tag_bits_ = 64;
    std::uint64_t next_key_ = 1;
};

} // namespace meridian::msg_ofi

#endif
