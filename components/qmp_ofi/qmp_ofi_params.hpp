// The ofi transport's parameters, as register_params resolved them (the
// component's storage; read when the transport starts).
#ifndef MERIDIAN_QMP_OFI_PARAMS_HPP
#define MERIDIAN_QMP_OFI_PARAMS_HPP

#include <cstddef>
#include <string>

namespace meridian::msg_ofi
{

enum class ShmMode { automatic = 0, off = 1 };
enum class CmaMode { automatic = 0, off = 1 };
enum class TcpMode { automatic = 0, off = 1 };

struct Params {
    std::string provider = "auto"; // msg_ofi_provider
    ShmMode shm = ShmMode::automatic;
    CmaMode cma = CmaMode::automatic;
    TcpMode tcp = TcpMode::automatic;
    int timeout_s = 300;                  // 0: no limit (dead local peers are still detected)
    std::size_t eager_limit = 0;          // bytes; larger shm messages use CMA
    std::size_t split_limit = 0;          // bytes; from this size both sides copy (0: never)
    std::size_t cma_min_block = 0;        // bytes; CMA only for block lists this coarse on average
    std::size_t shm_slots = 0;            // slots per ring
    std::size_t shm_slot_bytes = 0;       // bytes per slot (header included)
    int liveness_ms = 5;                  // how often a wait checks local peers' pids
    std::size_t rxm_eager_limit = 0;      // msg_ofi_rxm_eager_limit: ofi_rxm's buffer size
    int tcp_handshake_timeout_ms = 10000; // an accepted connection's time to prove itself
    std::size_t tcp_pending_max = 64;     // accepted connections not yet proved, at most
    std::size_t unexpected_limit = 0;     // bytes of early messages held (tcp, shm rings)
};

// A snapshot of the current values (the component's storage).
Params current_params();

} // namespace meridian::msg_ofi

#endif
