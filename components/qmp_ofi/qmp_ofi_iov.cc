#include "components/qmp_ofi/qmp_ofi_iov.hpp"

namespace meridian::msg_ofi
{

void copy_iov(std::span<const iovec> to, std::span<const iovec> from, std::size_t n)
{
    if (to.size() == 1 && from.size() == 1) {
        if (n > 0) {
            std::memcpy(to[0].iov_base, from[0].iov_base, n);
        }
        return;
    }
    IovCursor src(from);
    IovCursor dst(to);
    while (n > 0) {
        const iovec in = src.piece(n);
        const iovec out = dst.piece(in.iov_len);
        std::memcpy(out.iov_base, in.iov_base, out.iov_len);
        src.advance(out.iov_len);
        dst.advance(out.iov_len);
        n -= out.iov_len;
    }
}

} // namespace meridian::msg_ofi
