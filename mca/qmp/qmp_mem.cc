// SPDX-License-Identifier: BSD-3-Clause
// Aligned memory (with a registry, so the 2002 QMP_free_aligned_memory can
// free by the pointer) and message memory: each kind becomes its runs of
// bytes once, here, and channels copy them at declare time.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>

#include "mca/qmp/qmp_internal.hpp"
#include "mca/qmp/qmp_msg.hpp"
#include "opal/util/no_destructor.hpp"

struct QMP_mem_struct {
    struct Free {
        void operator()(void *p) const { std::free(p); }
    };
    std::unique_ptr<void, Free> allocation;
    void *aligned = nullptr;
};

namespace meridian::qmp
{

bool BlockList::add(std::ptrdiff_t offset, std::size_t length)
{
    if (length == 0) {
        return true;
    }
    std::size_t total = 0;
    if (__builtin_add_overflow(nbytes_, length, &total) ||
        length > static_cast<std::size_t>(PTRDIFF_MAX)) {
        return false;
    }
    if (!blocks_.empty()) {
        Block &last = blocks_.back();
        std::ptrdiff_t end = 0;
        if (!__builtin_add_overflow(last.offset, static_cast<std::ptrdiff_t>(last.length), &end) &&
            end == offset) {
            last.length += length;
            nbytes_ = total;
            return true;
        }
    }
    blocks_.push_back(Block{offset, length});
    nbytes_ = total;
    return true;
}

namespace
{

Error layout_error(QMP_status_t status, std::string why)
{
    return make_error(static_cast<int>(status), std::move(why));
}

Error too_big()
{
    return layout_error(QMP_MEMSIZE_TOOBIG, "the message is larger than memory");
}

// Adds nblocks runs of blksize bytes at origin + i * stride.
bool add_strided(BlockList &list, std::ptrdiff_t origin, std::size_t blksize, int nblocks,
                 std::ptrdiff_t stride)
{
    for (int i = 0; i < nblocks; ++i) {
        std::ptrdiff_t step = 0, offset = 0;
        if (__builtin_mul_overflow(static_cast<std::ptrdiff_t>(i), stride, &step) ||
            __builtin_add_overflow(origin, step, &offset) || !list.add(offset, blksize)) {
            return false;
        }
    }
    return true;
}

} // namespace

Result<BlockList> contiguous_layout(std::size_t nbytes)
{
    BlockList list;
    if (!list.add(0, nbytes)) {
        return too_big();
    }
    return list;
}

Result<BlockList> strided_layout(std::size_t blksize, int nblocks, std::ptrdiff_t stride)
{
    if (nblocks < 0) {
        return layout_error(QMP_INVALID_ARG,
                            "nblocks is " + std::to_string(nblocks) + ", expected 0 or more");
    }
    BlockList list;
    if (!add_strided(list, 0, blksize, nblocks, stride)) {
        return too_big();
    }
    return list;
}

Result<BlockList> strided_array_layout(std::span<void *const> base,
                                       std::span<const std::size_t> blksize,
                                       std::span<const int> nblocks,
                                       std::span<const std::ptrdiff_t> stride)
{
    BlockList list;
    if (base.empty()) {
        return list;
    }
    const auto origin0 = reinterpret_cast<std::uintptr_t>(base[0]);
    for (std::size_t i = 0; i < base.size(); ++i) {
        if (nblocks[i] < 0) {
            return layout_error(QMP_INVALID_ARG, "nblocks[" + std::to_string(i) + "] is " +
                                                     std::to_string(nblocks[i]) +
                                                     ", expected 0 or more");
        }
        // base[i] - base[0] as MPI_Type_create_struct's displacement.
        const auto origin =
            static_cast<std::ptrdiff_t>(reinterpret_cast<std::uintptr_t>(base[i]) - origin0);
        if (!add_strided(list, origin, blksize[i], nblocks[i], stride[i])) {
            return too_big();
        }
    }
    return list;
}

Result<BlockList> indexed_layout(std::span<const int> blocklen, std::span<const int> index,
                                 int elemsize)
{
    if (elemsize < 0) {
        return layout_error(QMP_INVALID_ARG,
                            "elemsize is " + std::to_string(elemsize) + ", expected 0 or more");
    }
    BlockList list;
    const auto elem = static_cast<std::ptrdiff_t>(elemsize);
    for (std::size_t i = 0; i < blocklen.size(); ++i) {
        if (blocklen[i] < 0) {
            return layout_error(QMP_INVALID_ARG, "blocklen[" + std::to_string(i) + "] is " +
                                                     std::to_string(blocklen[i]) +
                                                     ", expected 0 or more");
        }
        // int * int fits a ptrdiff_t on every platform QMP runs on.
        const std::ptrdiff_t offset = static_cast<std::ptrdiff_t>(index[i]) * elem;
        const std::size_t length =
            static_cast<std::size_t>(blocklen[i]) * static_cast<std::size_t>(elem);
        if (!list.add(offset, length)) {
            return too_big();
        }
    }
    return list;
}

void to_iovec(const std::vector<Block> &blocks, const void *base, std::vector<iovec> &out)
{
    out.resize(blocks.size());
    // Integer arithmetic: runs may lie before base (negative strides).
    const auto origin = reinterpret_cast<std::uintptr_t>(base);
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        out[i].iov_base =
            reinterpret_cast<void *>(origin + static_cast<std::uintptr_t>(blocks[i].offset));
        out[i].iov_len = blocks[i].length;
    }
}

namespace
{

// Every QMP_mem_t alive, and its aligned pointer: both frees check what
// they are given without following it (a stale or foreign pointer is
// reported, not dereferenced).
struct MemoryRegistry {
    std::mutex mutex;
    std::unordered_map<QMP_mem_t *, std::unique_ptr<QMP_mem_struct>> owned;
    std::unordered_map<void *, QMP_mem_t *> by_pointer;

    // The entry's memory, taken out of the registry (nullptr: unknown).
    std::unique_ptr<QMP_mem_struct> take(QMP_mem_t *mem)
    {
        auto it = owned.find(mem);
        if (it == owned.end()) {
            return nullptr;
        }
        std::unique_ptr<QMP_mem_struct> taken = std::move(it->second);
        owned.erase(it);
        by_pointer.erase(taken->aligned);
        return taken;
    }
};

MemoryRegistry &registry()
{
    static util::NoDestructor<MemoryRegistry> instance;
    return instance.get();
}

std::string pointer_text(const void *p)
{
    std::ostringstream text;
    text << p;
    return text.str();
}

QMP_msgmem_t make_msgmem(const char *call, const void *base, Result<BlockList> layout)
{
    if (!layout) {
        set_error(static_cast<QMP_status_t>(layout.error().status),
                  std::string(call) + ": " + layout.error().message);
        return nullptr;
    }
    auto mem = std::make_unique<QMP_msgmem_struct>();
    mem->base = static_cast<const char *>(base);
    mem->layout = std::move(*layout);
    return mem.release(); // the application's until QMP_free_msgmem
}

} // namespace
} // namespace meridian::qmp

using namespace meridian::qmp;

namespace
{

// The flags are hints QMP ignores too.  Any alignment works, as in QMP: a
// power of two through posix_memalign, others by rounding up in a larger
// block.
QMP_mem_t *allocate_aligned(size_t nbytes, size_t alignment)
{
    const char *call = "QMP_allocate_aligned_memory";
    const std::size_t size = nbytes > 0 ? nbytes : 1;
    auto mem = std::make_unique<QMP_mem_struct>();
    void *block = nullptr;
    const bool power_of_two = (alignment & (alignment - 1)) == 0;
    if (power_of_two && alignment <= alignof(std::max_align_t)) {
        block = std::malloc(size);
        mem->aligned = block;
    } else if (power_of_two) {
        if (posix_memalign(&block, alignment, size) != 0) {
            block = nullptr;
        }
        mem->aligned = block;
    } else {
        std::size_t padded = 0;
        if (__builtin_add_overflow(size, alignment, &padded)) {
            set_error(QMP_MEMSIZE_TOOBIG, std::string(call) + ": " + std::to_string(nbytes) +
                                              " bytes aligned to " + std::to_string(alignment) +
                                              " is larger than memory");
            return nullptr;
        }
        block = std::malloc(padded);
        const auto at = reinterpret_cast<std::uintptr_t>(block);
        mem->aligned = reinterpret_cast<void *>((at + alignment - 1) / alignment * alignment);
    }
    if (block == nullptr) {
        set_error(QMP_NOMEM_ERR, std::string(call) + ": cannot allocate " + std::to_string(nbytes) +
                                     " bytes aligned to " + std::to_string(alignment));
        return nullptr;
    }
    mem->allocation.reset(block);
    MemoryRegistry &r = registry();
    std::lock_guard guard(r.mutex);
    QMP_mem_t *result = mem.get();
    void *aligned = mem->aligned;
    // Owned first: should the second insertion run out of memory, no entry
    // is left pointing at freed memory.
    r.owned.emplace(result, std::move(mem));
    r.by_pointer.emplace(aligned, result);
    return result;
}

} // namespace

extern "C" {

QMP_mem_t *QMP_allocate_memory(size_t nbytes)
{
    const auto result = qmp_boundary(__func__, nullptr,
                                     [&] { return allocate_aligned(nbytes, QMP_ALIGN_DEFAULT); });
    return said_unless(result);
}

QMP_mem_t *QMP_allocate_aligned_memory(size_t nbytes, size_t alignment, int flags)
{
    static_cast<void>(flags);
    const auto result =
        qmp_boundary(__func__, nullptr, [&] { return allocate_aligned(nbytes, alignment); });
    return said_unless(result);
}

void *QMP_get_memory_pointer(QMP_mem_t *mem)
{
    return qmp_boundary(__func__, nullptr, [&]() -> void * {
        if (mem == nullptr) {
            set_error(QMP_INVALID_ARG, "QMP_get_memory_pointer: the memory is NULL");
            return nullptr;
        }
        return mem->aligned;
    });
}

void QMP_free_memory(QMP_mem_t *mem)
{
    qmp_boundary_void(__func__, [&] {
        if (mem == nullptr) {
            return;
        }
        MemoryRegistry &r = registry();
        std::unique_ptr<QMP_mem_struct> doomed; // freed outside the lock
        {
            std::lock_guard guard(r.mutex);
            doomed = r.take(mem);
        }
        if (doomed == nullptr) {
            fatal_error(QMP_BAD_MEMORY,
                        "QMP_free_memory: " + pointer_text(mem) +
                            " is not memory from QMP_allocate_memory (or it was freed already)");
        }
    });
}

void QMP_free_aligned_memory(void *pointer)
{
    qmp_boundary_void(__func__, [&] {
        if (pointer == nullptr) {
            return;
        }
        MemoryRegistry &r = registry();
        std::unique_ptr<QMP_mem_struct> doomed;
        {
            std::lock_guard guard(r.mutex);
            if (auto it = r.by_pointer.find(pointer); it != r.by_pointer.end()) {
                doomed = r.take(it->second);
            }
        }
        if (doomed == nullptr) {
            fatal_error(QMP_BAD_MEMORY, "QMP_free_aligned_memory: " + pointer_text(pointer) +
                                            " is not a pointer QMP_get_memory_pointer gave (or "
                                            "it was freed already)");
        }
    });
}

QMP_msgmem_t QMP_declare_msgmem(const void *mem, size_t nbytes)
{
    const auto result = qmp_boundary(__func__, nullptr, [&] {
        return make_msgmem("QMP_declare_msgmem", mem, contiguous_layout(nbytes));
    });
    return said_unless(result);
}

QMP_msgmem_t QMP_declare_strided_msgmem(void *base, size_t blksize, int nblocks, ptrdiff_t stride)
{
    const auto result = qmp_boundary(__func__, nullptr, [&] {
        return make_msgmem("QMP_declare_strided_msgmem", base,
                           strided_layout(blksize, nblocks, stride));
    });
    return said_unless(result);
}

QMP_msgmem_t QMP_declare_strided_array_msgmem(void *base[], size_t blksize[], int nblocks[],
                                              ptrdiff_t stride[], int num)
{
    const auto result = qmp_boundary(__func__, nullptr, [&]() -> QMP_msgmem_t {
        const char *call = "QMP_declare_strided_array_msgmem";
        if (num < 0) {
            set_error(QMP_INVALID_ARG, std::string(call) + ": num is " + std::to_string(num) +
                                           ", expected 0 or more");
            return nullptr;
        }
        if (num > 0 &&
            (base == nullptr || blksize == nullptr || nblocks == nullptr || stride == nullptr)) {
            set_error(QMP_INVALID_ARG,
                      std::string(call) + ": base, blksize, nblocks and stride must not be NULL");
            return nullptr;
        }
        const auto n = static_cast<std::size_t>(num);
        return make_msgmem(
            call, num > 0 ? base[0] : nullptr,
            strided_array_layout({base, n}, {blksize, n}, {nblocks, n}, {stride, n}));
    });
    return said_unless(result);
}

QMP_msgmem_t QMP_declare_indexed_msgmem(void *base, int blocklen[], int index[], int elemsize,
                                        int count)
{
    const auto result = qmp_boundary(__func__, nullptr, [&]() -> QMP_msgmem_t {
        const char *call = "QMP_declare_indexed_msgmem";
        if (count < 0) {
            set_error(QMP_INVALID_ARG, std::string(call) + ": count is " + std::to_string(count) +
                                           ", expected 0 or more");
            return nullptr;
        }
        if (count > 0 && (blocklen == nullptr || index == nullptr)) {
            set_error(QMP_INVALID_ARG, std::string(call) + ": blocklen and index must not be NULL");
            return nullptr;
        }
        const auto n = static_cast<std::size_t>(count);
        return make_msgmem(call, base, indexed_layout({blocklen, n}, {index, n}, elemsize));
    });
    return said_unless(result);
}

// Handles keep their own copy of the runs, so message memory may be freed
// while channels declared on it live on (QMP's MPI version allows it too).
void QMP_free_msgmem(QMP_msgmem_t m)
{
    qmp_boundary_void(__func__, [&] { std::unique_ptr<QMP_msgmem_struct> doomed(m); });
}

} // extern "C"
