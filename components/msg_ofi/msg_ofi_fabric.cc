// SPDX-License-Identifier: BSD-3-Clause
#include "components/msg_ofi/msg_ofi_fabric.hpp"
#include "components/msg_ofi/msg_ofi_params.hpp"

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <meridian/opal/util/strings.hpp>

namespace meridian::msg_ofi
{

namespace
{

constexpr std::uint32_t api_version = FI_VERSION(1, 10);

std::string fi_error(const std::string &what, int rc)
{
    return "msg ofi: " + what + ": " + libfabric::strerror(rc < 0 ? -rc : rc);
}

// Tagged, directed receives (a receive names its peer), sends matched in
// the order they were posted, and every memory-registration mode we can
// satisfy at channel declaration.
InfoPtr make_hints()
{
    InfoPtr hints(libfabric::allocinfo());
    if (!hints) {
        return hints;
    }
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_TAGGED | FI_DIRECTED_RECV;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    hints->tx_attr->msg_order = FI_ORDER_SAS;
    hints->rx_attr->msg_order = FI_ORDER_SAS;
    return hints;
}

// Settings libfabric reads when its providers initialise (the first
// fi_getinfo of the process); a value the user set wins.
void prepare_environment()
{
    // libfabric 1.17's tcp;ofi_rxm with dynamic receive buffers loses
    // messages: a zero-byte message sent to a process that has not sent on
    // the connection yet sometimes never matches its posted receive
    // (reproduced by test/msg_ofi's barrier, ~4 runs in 5).  Without them
    // rxm stages eager messages through its own buffers.
    ::setenv("FI_OFI_RXM_ENABLE_DYN_RBUF", "0", 0);
    const Params params = current_params();
    // Messages up to 128 KiB in one piece (16 KiB by libfabric's default:
    // 32-128 KiB were cut into 16 KiB pieces, 1.3-1.6x Open MPI's time
    // between two hosts); the receive buffers stay 2 MiB.  (Its shared
    // receive queue stays: without it, FI_OFI_RXM_USE_SRX=0, a barrier's
    // message was lost in 1 run of 3 of 4 processes on one loaded node.)
    constexpr std::size_t receive_bytes = std::size_t{2} << 20;
    const std::size_t buffer = std::max<std::size_t>(params.rxm_eager_limit, 1024);
    ::setenv("FI_OFI_RXM_BUFFER_SIZE", std::to_string(buffer).c_str(), 0);
    ::setenv("FI_OFI_RXM_MSG_RX_SIZE",
             std::to_string(std::max<std::size_t>(8, receive_bytes / buffer)).c_str(), 0);
}

} // namespace

namespace
{

// The providers that offer what HINTS ask for, whichever provider they name:
// ", offered here: tcp;ofi_rxm, udp;ofi_rxd, shm", or that none is.
std::string providers_offered(const fi_info *hints, const char *node, const char *service,
                              std::uint64_t flags)
{
    InfoPtr any(libfabric::dupinfo(hints));
    if (!any) {
        return {};
    }
    std::free(any->fabric_attr->prov_name);
    any->fabric_attr->prov_name = nullptr;
    fi_info *list = nullptr;
    if (libfabric::getinfo(api_version, node, service, flags, any.get(), &list) != 0 ||
        list == nullptr) {
        return "; no provider offers them here";
    }
    const InfoPtr offered(list);
    std::vector<std::string> names;
    for (const fi_info *cur = list; cur != nullptr; cur = cur->next) {
        const std::string name = cur->fabric_attr->prov_name;
        if (std::find(names.begin(), names.end(), name) == names.end()) {
            names.push_back(name);
        }
    }
    return "; offered here: " + util::join(names, ", ");
}

// The providers fi_getinfo offers, and the one to take.
struct Offer {
    InfoPtr all;
    fi_info *chosen = nullptr;
    Error error;
};

Offer choose(const fi_info *hints, const std::string &provider, bool single_node, const char *node,
             const char *service, std::uint64_t flags)
{
    Offer choice;
    fi_info *list = nullptr;
    const int rc = libfabric::getinfo(api_version, node, service, flags, hints, &list);
    choice.all.reset(list);
    const char *filter = std::getenv("FI_PROVIDER");
    const std::string asked = "msg_ofi_provider=" + provider +
                              (filter != nullptr ? std::string(", FI_PROVIDER=") + filter : "");
    const bool automatic = provider.empty() || provider == "auto";
    if (rc != 0 || list == nullptr) {
        // A provider named by hand: which ones would do (FI_PROVIDER still
        // filters them, as libfabric reads it).
        choice.error = make_error(
            MERIDIAN_ERR_NOT_AVAILABLE,
            "msg ofi: no libfabric provider offers reliable tagged messages with " + asked +
                " (fi_getinfo: " + libfabric::strerror(-rc) + ")" +
                (automatic ? std::string() : providers_offered(hints, node, service, flags)));
        return choice;
    }
    if (automatic) {
        for (fi_info *cur = list; cur != nullptr && choice.chosen == nullptr; cur = cur->next) {
            if (std::strcmp(cur->fabric_attr->prov_name, "shm") != 0) {
                choice.chosen = cur;
            }
        }
        if (choice.chosen == nullptr && single_node) {
            choice.chosen = list;
        }
        if (choice.chosen == nullptr) {
            choice.error = make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                                      "msg ofi: only the shm provider is offered (" + asked +
                                          "), and it cannot reach other nodes");
        }
        return choice;
    }
    if (!single_node && std::strcmp(list->fabric_attr->prov_name, "shm") == 0) {
        choice.error =
            make_error(MERIDIAN_ERR_NOT_AVAILABLE, "msg ofi: the provider shm (" + asked +
                                                       ") cannot reach the job's other nodes");
        return choice;
    }
    choice.chosen = list;
    return choice;
}

// The hints asking for a provider ("auto": whichever libfabric offers),
// once the environment libfabric reads at start is set.
Result<InfoPtr> hints_for(const std::string &provider)
{
    if (Status loaded = libfabric::load(); !loaded) {
        return loaded.error();
    }
    prepare_environment();
    InfoPtr hints = make_hints();
    if (!hints) {
        return make_error(MERIDIAN_ERR_OUT_OF_RESOURCE, "msg ofi: fi_allocinfo failed");
    }
    if (provider != "auto" && !provider.empty()) {
        hints->fabric_attr->prov_name = ::strdup(provider.c_str());
    }
    return hints;
}

} // namespace

bool Endpoint::any_provider()
{
    auto hints = hints_for("auto");
    fi_info *list = nullptr;
    if (!hints || libfabric::getinfo(api_version, nullptr, nullptr, 0, hints->get(), &list) != 0) {
        return false;
    }
    InfoPtr owned(list);
    return list != nullptr;
}

Status Endpoint::check_provider(const std::string &provider)
{
    if (provider.empty() || provider == "auto") {
        return success();
    }
    auto hints = hints_for(provider);
    if (!hints) {
        return hints.error();
    }
    const Offer choice = choose(hints->get(), provider, true, nullptr, nullptr, 0);
    if (choice.chosen == nullptr) {
        return choice.error;
    }
    return success();
}

Result<std::unique_ptr<Endpoint>> Endpoint::open(const std::string &provider, bool single_node,
                                                 const Source &source)
{
    auto hints = hints_for(provider);
    if (!hints) {
        return hints.error();
    }
    std::string unbound = "pnet assigned this process no endpoint";
    if (!source.node.empty()) {
        // Listen on the address and port pnet gave this process.
        const std::string where = source.node + ":" + source.service;
        Offer choice = choose(hints->get(), provider, single_node, source.node.c_str(),
                              source.service.empty() ? nullptr : source.service.c_str(), FI_SOURCE);
        if (choice.chosen == nullptr) {
            unbound = "no provider takes the pnet endpoint " + where + ": " + choice.error.message;
        } else {
            auto ep = create(choice.chosen);
            if (ep) {
                (*ep)->bound_to_ = where;
                return ep;
            }
            unbound = "the pnet endpoint " + where + ": " + ep.error().message;
        }
    }
    Offer choice = choose(hints->get(), provider, single_node, nullptr, nullptr, 0);
    if (choice.chosen == nullptr) {
        return choice.error;
    }
    auto ep = create(choice.chosen);
    if (ep) {
        (*ep)->unbound_reason_ = unbound;
    }
    return ep;
}

Result<Endpoint::Choice> Endpoint::choice(const std::string &provider, bool single_node,
                                          const Source &source)
{
    auto hints = hints_for(provider);
    if (!hints) {
        return hints.error();
    }
    const auto describe = [](const fi_info *chosen) {
        Endpoint::Choice taken;
        taken.provider = chosen->fabric_attr->prov_name;
        if (chosen->src_addr != nullptr &&
            (chosen->addr_format == FI_SOCKADDR_IN || chosen->addr_format == FI_SOCKADDR_IN6)) {
            const auto *raw = static_cast<const std::uint8_t *>(chosen->src_addr);
            taken.address.assign(raw, raw + chosen->src_addrlen);
        }
        return taken;
    };
    std::string unbound = "pnet assigned this process no endpoint";
    if (!source.node.empty()) {
        const std::string where = source.node + ":" + source.service;
        const Offer offer =
            choose(hints->get(), provider, single_node, source.node.c_str(),
                   source.service.empty() ? nullptr : source.service.c_str(), FI_SOURCE);
        if (offer.chosen != nullptr) {
            Endpoint::Choice taken = describe(offer.chosen);
            taken.bound_to = where;
            return taken;
        }
        unbound = "no provider takes the pnet endpoint " + where + ": " + offer.error.message;
    }
    const Offer offer = choose(hints->get(), provider, single_node, nullptr, nullptr, 0);
    if (offer.chosen == nullptr) {
        return offer.error;
    }
    Endpoint::Choice taken = describe(offer.chosen);
    taken.unbound_reason = unbound;
    return taken;
}

Result<std::unique_ptr<Endpoint>> Endpoint::create(const fi_info *chosen)
{
    int rc = 0;
    auto ep = std::make_unique<Endpoint>();
    ep->info_.reset(libfabric::dupinfo(chosen));
    if (!ep->info_) {
        return make_error(MERIDIAN_ERR_OUT_OF_RESOURCE, "msg ofi: fi_dupinfo failed");
    }
    fi_info *info = ep->info_.get();
    ep->provider_ = info->fabric_attr->prov_name;
    ep->domain_name_ = info->domain_attr->name != nullptr ? info->domain_attr->name : "";
    ep->needs_registration_ = (info->domain_attr->mr_mode & FI_MR_LOCAL) != 0;
    ep->tx_iov_limit_ = std::max<std::size_t>(1, info->tx_attr->iov_limit);
    ep->rx_iov_limit_ = std::max<std::size_t>(1, info->rx_attr->iov_limit);
    ep->inject_size_ = info->tx_attr->inject_size;
    const std::uint64_t format = info->ep_attr->mem_tag_format;
    ep->tag_bits_ = format == 0 ? 64U : static_cast<unsigned>(64 - std::countl_zero(format));
    const std::string what = "provider " + ep->provider_ + " (" + ep->domain_name_ + ")";

    fid_fabric *fabric = nullptr;
    if ((rc = libfabric::fabric(info->fabric_attr, &fabric, nullptr)) != 0) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE, fi_error("fi_fabric for " + what, rc));
    }
    ep->fabric_.reset(fabric);
    fid_domain *domain = nullptr;
    if ((rc = fi_domain(fabric, info, &domain, nullptr)) != 0) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE, fi_error("fi_domain for " + what, rc));
    }
    ep->domain_.reset(domain);
    fi_cq_attr cq_attr{};
    cq_attr.format = FI_CQ_FORMAT_TAGGED;
    cq_attr.wait_obj = FI_WAIT_NONE;
    fid_cq *cq = nullptr;
    if ((rc = fi_cq_open(domain, &cq_attr, &cq, nullptr)) != 0) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE, fi_error("fi_cq_open for " + what, rc));
    }
    ep->cq_.reset(cq);
    fi_av_attr av_attr{};
    av_attr.type = FI_AV_TABLE;
    fid_av *av = nullptr;
    if ((rc = fi_av_open(domain, &av_attr, &av, nullptr)) != 0) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE, fi_error("fi_av_open for " + what, rc));
    }
    ep->av_.reset(av);
    fid_ep *endpoint = nullptr;
    if ((rc = fi_endpoint(domain, info, &endpoint, nullptr)) != 0) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE, fi_error("fi_endpoint for " + what, rc));
    }
    ep->ep_.reset(endpoint);
    if ((rc = fi_ep_bind(endpoint, &cq->fid, FI_TRANSMIT | FI_RECV)) != 0 ||
        (rc = fi_ep_bind(endpoint, &av->fid, 0)) != 0 || (rc = fi_enable(endpoint)) != 0) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                          fi_error("setting up the endpoint of " + what, rc));
    }
    return ep;
}

Endpoint::~Endpoint() = default;

std::vector<std::uint8_t> Endpoint::address() const
{
    std::vector<std::uint8_t> name(256);
    std::size_t len = name.size();
    int rc = fi_getname(&ep_->fid, name.data(), &len);
    if (rc == -FI_ETOOSMALL) {
        name.resize(len);
        rc = fi_getname(&ep_->fid, name.data(), &len);
    }
    name.resize(rc == 0 ? len : 0);
    return name;
}

Result<fi_addr_t> Endpoint::insert(std::span<const std::uint8_t> address)
{
    fi_addr_t addr = FI_ADDR_UNSPEC;
    const int inserted = fi_av_insert(av_.get(), address.data(), 1, &addr, 0, nullptr);
    if (inserted != 1) {
        return make_error(MERIDIAN_ERR_UNREACH,
                          fi_error("fi_av_insert", inserted < 0 ? inserted : -FI_EINVAL));
    }
    return addr;
}

Result<FidPtr<fid_mr>> Endpoint::register_memory(const void *base, std::size_t bytes)
{
    fid_mr *mr = nullptr;
    const int rc =
        fi_mr_reg(domain_.get(), base, bytes, FI_SEND | FI_RECV, 0, next_key_++, 0, &mr, nullptr);
    if (rc != 0) {
        return make_error(MERIDIAN_ERR_OUT_OF_RESOURCE,
                          fi_error("registering " + std::to_string(bytes) + " bytes", rc));
    }
    return FidPtr<fid_mr>(mr);
}

} // namespace meridian::msg_ofi
